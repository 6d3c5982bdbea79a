// The words of a language, for correcting the recognizer's unsure Latin words
// (rec/lexicon_correction.h). English is Debian's wamerican list (/usr/share/dict), embedded at
// build time. Words are kept folded to lowercase, ASCII letters only, in a trie searched by edit
// distance.
// Thread-safety: immutable once built; English() builds its lexicon once, on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ocr::pipeline {

class Lexicon {
 public:
  // One word per line; a line that is not ASCII letters only (a possessive, an accented word) is
  // left out; case is folded.
  explicit Lexicon(std::string_view lines);

  // The embedded English list.
  static const Lexicon& English();

  // Whether `word` (lowercase ASCII letters) is one of the words.
  bool Contains(std::string_view word) const;

  // The words at most `max_edits` insertions, deletions or substitutions away from `word`
  // (lowercase ASCII letters), `word` itself included when it is one; in no particular order.
  std::vector<std::string> Near(std::string_view word, int max_edits) const;

  std::size_t size() const { return words_; }

 private:
  struct Node {
    char letter = 0;
    bool word = false;  // a word ends here
    std::int32_t first_child = -1;
    std::int32_t next_sibling = -1;
  };

  std::int32_t Child(std::int32_t node, char letter) const;
  void Search(std::int32_t node, std::string_view word, const std::vector<int>& row, int max_edits,
              std::string& prefix, std::vector<std::string>& out) const;

  std::vector<Node> nodes_{Node{}};  // nodes_[0] is the root
  std::size_t words_ = 0;
};

}  // namespace ocr::pipeline
