#include "pipeline/rec/lexicon.h"

#include <algorithm>

#include "common/text.h"
#include "pipeline/internal/embedded_words.h"

namespace ocr::pipeline {
namespace {

bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

}  // namespace

Lexicon::Lexicon(std::string_view lines) {
  while (!lines.empty()) {
    const std::size_t end = std::min(lines.find('\n'), lines.size());
    std::string_view line = lines.substr(0, end);
    lines.remove_prefix(std::min(end + 1, lines.size()));
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty() || !std::all_of(line.begin(), line.end(), IsLetter))
      continue;
    std::int32_t node = 0;
    for (const char c : line) {
      const char letter = AsciiLower(c);
      std::int32_t child = Child(node, letter);
      if (child < 0) {
        child = static_cast<std::int32_t>(nodes_.size());
        Node added;
        added.letter = letter;
        added.next_sibling = nodes_[static_cast<std::size_t>(node)].first_child;
        nodes_.push_back(added);
        nodes_[static_cast<std::size_t>(node)].first_child = child;
      }
      node = child;
    }
    Node& last = nodes_[static_cast<std::size_t>(node)];
    words_ += last.word ? 0 : 1;
    last.word = true;
  }
}

const Lexicon& Lexicon::English() {
  static const Lexicon english(internal::FindAsset("/words.txt")->body);
  return english;
}

std::int32_t Lexicon::Child(std::int32_t node, char letter) const {
  for (std::int32_t c = nodes_[static_cast<std::size_t>(node)].first_child; c >= 0;
       c = nodes_[static_cast<std::size_t>(c)].next_sibling) {
    if (nodes_[static_cast<std::size_t>(c)].letter == letter)
      return c;
  }
  return -1;
}

bool Lexicon::Contains(std::string_view word) const {
  std::int32_t node = 0;
  for (const char c : word) {
    node = Child(node, c);
    if (node < 0)
      return false;
  }
  return !word.empty() && nodes_[static_cast<std::size_t>(node)].word;
}

std::vector<std::string> Lexicon::Near(std::string_view word, int max_edits) const {
  // Levenshtein rows down the trie: row[i] is the distance from the path so far to word[0, i).
  std::vector<int> row(word.size() + 1);
  for (std::size_t i = 0; i < row.size(); ++i)
    row[i] = static_cast<int>(i);
  std::vector<std::string> out;
  std::string prefix;
  if (nodes_.front().word && static_cast<int>(word.size()) <= max_edits)
    out.emplace_back();
  Search(0, word, row, max_edits, prefix, out);
  return out;
}

void Lexicon::Search(std::int32_t node, std::string_view word, const std::vector<int>& row,
                     int max_edits, std::string& prefix, std::vector<std::string>& out) const {
  std::vector<int> next(row.size());
  for (std::int32_t c = nodes_[static_cast<std::size_t>(node)].first_child; c >= 0;
       c = nodes_[static_cast<std::size_t>(c)].next_sibling) {
    const Node& child = nodes_[static_cast<std::size_t>(c)];
    next[0] = row[0] + 1;
    int best = next[0];
    for (std::size_t i = 1; i < row.size(); ++i) {
      next[i] = std::min(
          {next[i - 1] + 1, row[i] + 1, row[i - 1] + (word[i - 1] == child.letter ? 0 : 1)});
      best = std::min(best, next[i]);
    }
    if (best > max_edits)
      continue;  // every longer path is further still
    prefix.push_back(child.letter);
    if (child.word && next.back() <= max_edits)
      out.push_back(prefix);
    Search(c, word, next, max_edits, prefix, out);
    prefix.pop_back();
  }
}

}  // namespace ocr::pipeline
