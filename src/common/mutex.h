// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with Clang's thread-safety
// annotations, plus the annotation macros (GUARDED_BY, REQUIRES, EXCLUDES, ACQUIRE, RELEASE, ...)
// that let Clang's -Wthread-safety check the locking rules a comment would only state. Under
// other compilers the macros expand to nothing. As in leveldb port/thread_annotations.h and
// port/port_stdcxx.h.
//
//   class Counter {
//    public:
//     void Add() EXCLUDES(mu_) { MutexLock lock(&mu_); ++n_; }
//    private:
//     Mutex mu_;
//     int n_ GUARDED_BY(mu_) = 0;
//   };
//
// Thread-safety: Mutex and CondVar are safe from any thread (that is their purpose); a MutexLock
// belongs to the thread that made it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define OCR_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define OCR_THREAD_ANNOTATION(x)
#endif

// On a class: its objects are capabilities (locks).
#ifndef CAPABILITY
#define CAPABILITY(name) OCR_THREAD_ANNOTATION(capability(name))
#endif

// On a class: RAII objects that hold a capability for their lifetime.
#ifndef SCOPED_CAPABILITY
#define SCOPED_CAPABILITY OCR_THREAD_ANNOTATION(scoped_lockable)
#endif

// On a data member: read and written only with the capability held.
#ifndef GUARDED_BY
#define GUARDED_BY(x) OCR_THREAD_ANNOTATION(guarded_by(x))
#endif

// On a pointer member: what it points to is read and written only with the capability held.
#ifndef PT_GUARDED_BY
#define PT_GUARDED_BY(x) OCR_THREAD_ANNOTATION(pt_guarded_by(x))
#endif

// On a capability: the lock order (this one is taken after / before the listed ones).
#ifndef ACQUIRED_AFTER
#define ACQUIRED_AFTER(...) OCR_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#endif

#ifndef ACQUIRED_BEFORE
#define ACQUIRED_BEFORE(...) OCR_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#endif

// On a function: the caller holds the capabilities (exclusively / shared).
#ifndef REQUIRES
#define REQUIRES(...) OCR_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#endif

#ifndef REQUIRES_SHARED
#define REQUIRES_SHARED(...) OCR_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#endif

// On a function: it acquires / releases the capabilities (none named: `this`).
#ifndef ACQUIRE
#define ACQUIRE(...) OCR_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#endif

#ifndef ACQUIRE_SHARED
#define ACQUIRE_SHARED(...) OCR_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#endif

#ifndef RELEASE
#define RELEASE(...) OCR_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#endif

#ifndef RELEASE_SHARED
#define RELEASE_SHARED(...) OCR_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#endif

// On a function: acquires the capability when it returns `result` (true, or a value).
#ifndef TRY_ACQUIRE
#define TRY_ACQUIRE(...) OCR_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#endif

// On a function: the caller must not hold the capabilities (the function takes them).
#ifndef EXCLUDES
#define EXCLUDES(...) OCR_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#endif

// On a function: it checks at run time that the capability is held (the analysis trusts it).
#ifndef ASSERT_CAPABILITY
#define ASSERT_CAPABILITY(x) OCR_THREAD_ANNOTATION(assert_capability(x))
#endif

// On a function: it returns a reference to the capability.
#ifndef RETURN_CAPABILITY
#define RETURN_CAPABILITY(x) OCR_THREAD_ANNOTATION(lock_returned(x))
#endif

// On a function: the analysis skips its body. Say why next to each use.
#ifndef NO_THREAD_SAFETY_ANALYSIS
#define NO_THREAD_SAFETY_ANALYSIS OCR_THREAD_ANNOTATION(no_thread_safety_analysis)
#endif

namespace ocr {

class CondVar;

// A non-recursive exclusive lock (std::mutex). Prefer MutexLock to Lock()/Unlock(); use those to
// drop the lock for a while inside a MutexLock's scope (as leveldb's DBImpl does).
class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  ~Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }

  void Unlock() RELEASE() { mu_.unlock(); }

  // Tells the analysis the lock is held where it cannot see it (no run-time check:
  // std::mutex does not know its owner).
  void AssertHeld() ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` from construction to the end of the scope.
// REQUIRES: `mu` outlives this object.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }

  ~MutexLock() RELEASE() { mu_->Unlock(); }

  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A condition variable used with a Mutex. Wait in a loop, as spurious wake-ups happen:
//   while (!ready_) cv_.Wait(&mu_);
// REQUIRES: every thread waiting at the same time passes the same Mutex.
class CondVar {
 public:
  CondVar() = default;
  ~CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Releases `mu`, blocks until signalled (or spuriously woken), takes `mu` again.
  void Wait(Mutex* mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: it is the caller's
  }

  // As Wait, but for at most `timeout`: false when it timed out.
  template <class Rep, class Period>
  bool WaitFor(Mutex* mu, std::chrono::duration<Rep, Period> timeout) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool woken = cv_.wait_for(lock, timeout) == std::cv_status::no_timeout;
    lock.release();
    return woken;
  }

  // Wakes one waiter / every waiter. The lock need not be held.
  void Signal() { cv_.notify_one(); }

  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace ocr
