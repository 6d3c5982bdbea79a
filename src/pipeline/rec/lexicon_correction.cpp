#include "pipeline/rec/lexicon_correction.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "common/text.h"
#include "pipeline/rec/word_spaces.h"

namespace ocr::pipeline {
namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();
// Shorter words have too many neighbours one letter away for the columns to choose among.
constexpr std::size_t kMinLetters = 3;
// From this length a word may be two edits from its reading (a letter doubled and one misread).
constexpr std::size_t kTwoEditLetters = 8;
// Words in capitals shorter than this are taken for acronyms.
constexpr std::size_t kMinCapitalsLetters = 5;
// Letters of the English word a stray mark must follow: an initial ("J.Sorensen") is no word.
constexpr std::size_t kMinWordBeforeMark = 2;
// Punctuation a word may carry at either end and still be a word.
constexpr std::string_view kEdgePunctuation = ".,;:!?\"'()[]";

double LogAdd(double a, double b) {
  if (a == kNever)
    return b;
  if (b == kNever)
    return a;
  return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
}

float ProbabilityAt(std::span<const float> probs, int classes, int t, int c) {
  return probs[static_cast<std::size_t>(t) * static_cast<std::size_t>(classes) +
               static_cast<std::size_t>(c)];
}

double LogP(std::span<const float> probs, int classes, int t, int c) {
  return std::log(std::max(static_cast<double>(ProbabilityAt(probs, classes, t, c)), 1e-30));
}

int BestClass(std::span<const float> probs, int classes, int t) {
  const float* row = probs.data() + static_cast<std::size_t>(t) * static_cast<std::size_t>(classes);
  return static_cast<int>(std::max_element(row, row + classes) - row);
}

// The last column of the run that starts at column t: its class stays the best.
int RunEnd(std::span<const float> probs, int steps, int classes, int t) {
  const int cls = BestClass(probs, classes, t);
  while (t + 1 < steps && BestClass(probs, classes, t + 1) == cls)
    ++t;
  return t;
}

// The class of CTC state `s` over `labels`: the blank between and around them, a label at odd s.
int StateClass(std::span<const int> labels, std::size_t s) {
  return s % 2 == 0 ? 0 : labels[s / 2];
}

bool IsLetter(std::string_view c) {
  return c.size() == 1 && ((c[0] >= 'a' && c[0] <= 'z') || (c[0] >= 'A' && c[0] <= 'Z'));
}

bool IsEdgePunctuation(std::string_view c) {
  return c.size() == 1 && kEdgePunctuation.find(c[0]) != std::string_view::npos;
}

// Character k of `d`'s text.
std::string_view CharOf(const DecodedText& d, std::size_t k) {
  const auto begin = static_cast<std::size_t>(d.char_offsets[k]);
  const std::size_t end = k + 1 < d.char_offsets.size()
                              ? static_cast<std::size_t>(d.char_offsets[k + 1])
                              : d.text.size();
  return std::string_view(d.text).substr(begin, end - begin);
}

bool HasCharVectors(const DecodedText& d) {
  const std::size_t n = d.columns.size();
  return d.char_offsets.size() == n && d.char_confidences.size() == n &&
         d.space_before.size() == n && d.blanks_before.size() == n;
}

// The columns' most probable alignment of `labels` over [t0, t1): per label its first and last
// column, and per column (from t0) whether the blank holds it.
struct Alignment {
  std::vector<int> first;
  std::vector<int> last;
  std::vector<std::uint8_t> blank;
};

std::optional<Alignment> BestAlignment(std::span<const float> probs, int classes, int t0, int t1,
                                       std::span<const int> labels) {
  const std::size_t states = 2 * labels.size() + 1;
  const auto columns = static_cast<std::size_t>(t1 - t0);
  std::vector<double> score(states, kNever);
  std::vector<double> next(states);
  // back[t][s]: how many states back the best path into s at column t came from (0, 1 or 2).
  std::vector<std::uint8_t> back(columns * states, 0);
  score[0] = LogP(probs, classes, t0, 0);
  if (states > 1)
    score[1] = LogP(probs, classes, t0, labels[0]);
  for (std::size_t t = 1; t < columns; ++t) {
    for (std::size_t s = 0; s < states; ++s) {
      double best = score[s];
      std::uint8_t from = 0;
      if (s >= 1 && score[s - 1] > best) {
        best = score[s - 1];
        from = 1;
      }
      const int cls = StateClass(labels, s);
      if (s >= 2 && cls != 0 && cls != StateClass(labels, s - 2) && score[s - 2] > best) {
        best = score[s - 2];
        from = 2;
      }
      back[t * states + s] = from;
      next[s] =
          best == kNever ? kNever : best + LogP(probs, classes, t0 + static_cast<int>(t), cls);
    }
    std::swap(score, next);
  }
  std::size_t s = states - 1;
  if (states > 1 && score[states - 2] > score[s])
    s = states - 2;
  if (score[s] == kNever)
    return std::nullopt;
  Alignment a{std::vector<int>(labels.size(), -1), std::vector<int>(labels.size(), -1),
              std::vector<std::uint8_t>(columns, 0)};
  for (std::size_t t = columns; t-- > 0;) {
    const int column = t0 + static_cast<int>(t);
    if (s % 2 == 0) {
      a.blank[t] = 1;
    } else {
      a.first[s / 2] = column;
      if (a.last[s / 2] < 0)
        a.last[s / 2] = column;
    }
    s -= back[t * states + s];
  }
  return a;
}

// Whether `word` (ASCII letters) is written as words are: in lowercase, capitalized, or in
// capitals from five letters on. Capitals inside a word ("DsA", "AEs") and short words in
// capitals ("RMI", "PCI") are acronyms and codes, which no lexicon holds. But an I or L inside a
// lowercase word of five letters or more is a stem misread: at 100 dpi a t whose bar is lost, an
// l or an i without its dot reads as one ("quesLions", "sLudy", "KenneLh"). A name written so
// ("McLean") stays unless its columns nearly spell a word of the lexicon.
bool IsWordShaped(std::string_view word) {
  const auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  const auto capitals = std::count_if(word.begin(), word.end(), upper);
  if (capitals == static_cast<std::ptrdiff_t>(word.size()))
    return word.size() >= kMinCapitalsLetters;
  const auto stems =
      std::count_if(word.begin() + 1, word.end(), [](char c) { return c == 'I' || c == 'L'; });
  const std::ptrdiff_t first = upper(word.front()) ? 1 : 0;
  return capitals == first || (word.size() >= kMinCapitalsLetters && capitals == first + stems);
}

// One word of a reading: its characters [first, last], letters only (word_boxes.h's WordSpan is
// a word located in its crop).
struct LetterRun {
  std::size_t first;
  std::size_t last;
};

class Corrector {
 public:
  Corrector(DecodedText& decoded, std::span<const float> probs, int steps, int classes,
            const LatinClasses& latin, const Lexicon& lexicon, const LexiconRule& rule)
      : d_(decoded),
        probs_(probs),
        steps_(steps),
        classes_(classes),
        latin_(latin),
        lexicon_(lexicon),
        rule_(rule) {}

  // The words of the reading: runs of characters between spaces (written, or seen in the gap's
  // columns as InsertWordSpaces would write them) that are letters but for punctuation at their
  // ends.
  std::vector<LetterRun> Words() const {
    std::vector<LetterRun> words;
    const std::size_t n = d_.columns.size();
    for (std::size_t k = 0; k < n;) {
      if (Char(k) == " ") {
        ++k;
        continue;
      }
      std::size_t end = k + 1;
      while (end < n && Char(end) != " " && d_.space_before[end] < kWordSpaceEvidence)
        ++end;
      std::size_t a = k;
      std::size_t b = end;
      while (a < b && IsEdgePunctuation(Char(a)))
        ++a;
      while (b > a && IsEdgePunctuation(Char(b - 1)))
        --b;
      bool letters = b - a >= kMinLetters;
      for (std::size_t i = a; letters && i < b; ++i)
        letters = IsLetter(Char(i));
      if (letters)
        words.push_back({a, b - 1});
      k = end;
    }
    return words;
  }

  // Replaces `word` with the lexicon's best spelling when the rule allows.
  void Correct(const LetterRun& word) {
    std::string reading;
    float least = 1;
    for (std::size_t i = word.first; i <= word.last; ++i) {
      reading += Char(i);
      least = std::min(least, d_.char_confidences[i]);
    }
    if (least >= rule_.unsure || !IsWordShaped(reading))
      return;
    const std::string lower = AsciiLower(reading);
    if (lexicon_.Contains(lower))
      return;
    // The word's own columns: after the previous character's run, before the next character.
    const int t0 = word.first == 0 ? 0 : RunEnd(word.first - 1) + 1;
    const int t1 = word.last + 1 < d_.columns.size() ? d_.columns[word.last + 1] : steps_;
    std::vector<int> labels;
    if (t1 <= t0 || !Labels(reading, labels))
      return;
    const double read = CtcLogProbability(probs_, classes_, t0, t1, labels);
    double best = kNever;
    std::string spelling;
    std::vector<int> best_labels;
    const int edits = lower.size() >= kTwoEditLetters ? 2 : 1;
    for (const std::string& near : lexicon_.Near(lower, edits)) {
      // The case is the columns' to say: as written, capitalized or in capitals.
      std::string capital = near;
      capital[0] = static_cast<char>(capital[0] - 'a' + 'A');
      std::string upper = near;
      for (char& c : upper)
        c = static_cast<char>(c - 'a' + 'A');
      for (const std::string& variant : {near, capital, upper}) {
        if (!Labels(variant, labels))
          continue;
        const double margin = near.size() < lower.size() ? rule_.shorter_margin : rule_.margin;
        const double score = CtcLogProbability(probs_, classes_, t0, t1, labels);
        if (score >= read - margin && score > best) {
          best = score;
          spelling = variant;
          best_labels = labels;
        }
      }
    }
    if (best == kNever)
      return;
    const std::optional<Alignment> aligned = BestAlignment(probs_, classes_, t0, t1, best_labels);
    if (!aligned)
      return;
    Replace(word, spelling, best_labels, *aligned, t0);
  }

 private:
  std::string_view Char(std::size_t k) const { return CharOf(d_, k); }

  // The last column of character k's run.
  int RunEnd(std::size_t k) const {
    return pipeline::RunEnd(probs_, steps_, classes_, d_.columns[k]);
  }

  bool Labels(std::string_view spelling, std::vector<int>& labels) const {
    labels.clear();
    for (const char c : spelling) {
      const int cls = latin_.letter[static_cast<std::size_t>(static_cast<unsigned char>(c) & 127)];
      if (cls < 0)
        return false;
      labels.push_back(cls);
    }
    return true;
  }

  float Probability(int t, int cls) const { return ProbabilityAt(probs_, classes_, t, cls); }

  void Replace(const LetterRun& word, const std::string& spelling, const std::vector<int>& labels,
               const Alignment& a, int t0) {
    const std::size_t count = labels.size();
    std::vector<int> columns(count);
    std::vector<float> confidences(count);
    std::vector<float> space(count, 0);
    std::vector<int> blanks(count, 0);
    for (std::size_t i = 0; i < count; ++i) {
      columns[i] = a.first[i];
      confidences[i] = Probability(a.first[i], labels[i]);
      const int from = i == 0 ? t0 : a.last[i - 1] + 1;
      for (int t = from; t < a.first[i]; ++t) {
        if (a.blank[static_cast<std::size_t>(t - t0)] == 0)
          continue;
        ++blanks[i];
        if (latin_.space > 0)
          space[i] = std::max(space[i], Probability(t, latin_.space));
      }
    }
    if (word.first == 0)  // as CtcGreedyDecode has it: nothing before the first character
      space[0] = 0, blanks[0] = 0;
    const auto begin = static_cast<std::size_t>(d_.char_offsets[word.first]);
    const std::size_t end = word.last + 1 < d_.char_offsets.size()
                                ? static_cast<std::size_t>(d_.char_offsets[word.last + 1])
                                : d_.text.size();
    d_.text.replace(begin, end - begin, spelling);
    const auto shift = static_cast<int>(spelling.size()) - static_cast<int>(end - begin);
    std::vector<int> offsets(count);
    for (std::size_t i = 0; i < count; ++i)
      offsets[i] = static_cast<int>(begin + i);
    for (std::size_t k = word.last + 1; k < d_.char_offsets.size(); ++k)
      d_.char_offsets[k] += shift;
    Splice(d_.char_offsets, word, offsets);
    Splice(d_.columns, word, columns);
    Splice(d_.char_confidences, word, confidences);
    Splice(d_.space_before, word, space);
    Splice(d_.blanks_before, word, blanks);
  }

  template <typename T>
  static void Splice(std::vector<T>& v, const LetterRun& word, const std::vector<T>& with) {
    const auto at = v.begin() + static_cast<std::ptrdiff_t>(word.first);
    v.erase(at, v.begin() + static_cast<std::ptrdiff_t>(word.last + 1));
    v.insert(v.begin() + static_cast<std::ptrdiff_t>(word.first), with.begin(), with.end());
  }

  DecodedText& d_;
  std::span<const float> probs_;
  int steps_;
  int classes_;
  const LatinClasses& latin_;
  const Lexicon& lexicon_;
  const LexiconRule& rule_;
};

}  // namespace

LatinClasses LatinClassesOf(std::span<const std::string> charset) {
  LatinClasses latin;
  latin.letter.fill(-1);
  for (std::size_t k = 1; k < charset.size(); ++k) {
    const std::string& c = charset[k];
    if (c == " " && latin.space < 0)
      latin.space = static_cast<int>(k);
    else if (IsLetter(c) && latin.letter[static_cast<unsigned char>(c[0])] < 0)
      latin.letter[static_cast<unsigned char>(c[0])] = static_cast<int>(k);
  }
  return latin;
}

double CtcLogProbability(std::span<const float> probs, int classes, int t0, int t1,
                         std::span<const int> labels) {
  if (t1 <= t0)
    return labels.empty() ? 0.0 : kNever;
  const std::size_t states = 2 * labels.size() + 1;
  std::vector<double> alpha(states, kNever);
  std::vector<double> next(states);
  alpha[0] = LogP(probs, classes, t0, 0);
  if (states > 1)
    alpha[1] = LogP(probs, classes, t0, labels[0]);
  for (int t = t0 + 1; t < t1; ++t) {
    for (std::size_t s = 0; s < states; ++s) {
      double sum = alpha[s];
      if (s >= 1)
        sum = LogAdd(sum, alpha[s - 1]);
      const int cls = StateClass(labels, s);
      if (s >= 2 && cls != 0 && cls != StateClass(labels, s - 2))
        sum = LogAdd(sum, alpha[s - 2]);
      next[s] = sum == kNever ? kNever : sum + LogP(probs, classes, t, cls);
    }
    std::swap(alpha, next);
  }
  return states > 1 ? LogAdd(alpha[states - 1], alpha[states - 2]) : alpha[0];
}

void CorrectUnsureWords(DecodedText& decoded, std::span<const float> probs, int steps, int classes,
                        const LatinClasses& latin, const Lexicon& lexicon,
                        const LexiconRule& rule) {
  if (decoded.columns.size() < kMinLetters || !HasCharVectors(decoded))
    return;
  Corrector corrector(decoded, probs, steps, classes, latin, lexicon, rule);
  const std::vector<LetterRun> words = corrector.Words();
  for (auto word = words.rbegin(); word != words.rend(); ++word)  // later words first: indices hold
    corrector.Correct(*word);
}

void ReadStrayMarksAsSpaces(DecodedText& decoded, std::span<const float> probs, int steps,
                            int classes, const LatinClasses& latin, const Lexicon& lexicon) {
  if (latin.space < 0 || !HasCharVectors(decoded))
    return;
  for (std::size_t k = 1; k + 1 < decoded.columns.size(); ++k) {
    const std::string_view next = CharOf(decoded, k + 1);
    if (CharOf(decoded, k) != "." || !IsLetter(CharOf(decoded, k - 1)) || !IsLetter(next) ||
        next[0] < 'a' || decoded.space_before[k + 1] >= kWordSpaceEvidence) {
      continue;
    }
    // The space class in the mark's own columns: its run.
    float space = 0;
    const int end = RunEnd(probs, steps, classes, decoded.columns[k]);
    for (int t = decoded.columns[k]; t <= end; ++t)
      space = std::max(space, ProbabilityAt(probs, classes, t, latin.space));
    if (space < kWordSpaceEvidence)
      continue;
    std::size_t first = k;
    while (first > 0 && IsLetter(CharOf(decoded, first - 1)))
      --first;
    if (k - first < kMinWordBeforeMark)
      continue;
    std::string before;
    for (std::size_t i = first; i < k; ++i)
      before += CharOf(decoded, i);
    if (!lexicon.Contains(AsciiLower(before)))
      continue;
    decoded.text[static_cast<std::size_t>(decoded.char_offsets[k])] = ' ';
    decoded.char_confidences[k] = space;
  }
}

}  // namespace ocr::pipeline
