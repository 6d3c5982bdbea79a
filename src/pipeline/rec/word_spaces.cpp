#include "pipeline/rec/word_spaces.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "common/script.h"

namespace ocr::pipeline {
namespace {

std::string_view CharText(const DecodedText& d, size_t k) {
  const auto begin = static_cast<size_t>(d.char_offsets[k]);
  const size_t end =
      k + 1 < d.char_offsets.size() ? static_cast<size_t>(d.char_offsets[k + 1]) : d.text.size();
  return std::string_view(d.text).substr(begin, end - begin);
}

bool IsLatin(ScriptClass c) {
  return c == ScriptClass::kLatinLetter || c == ScriptClass::kLatinMark;
}

// The script class of each kept character of `d`.
std::vector<ScriptClass> Classes(const DecodedText& d) {
  std::vector<ScriptClass> classes;
  classes.reserve(d.char_offsets.size());
  for (size_t k = 0; k < d.char_offsets.size(); ++k)
    classes.push_back(ClassifyScript(CharText(d, k)));
  return classes;
}

// How the line spaces its Latin characters, from the gaps between neighbouring ones.
struct LatinSpacing {
  // The median gap in blank columns; -1 when the line has no such pair.
  int letter_gap = -1;
  // The space class rose in more than half the gaps ("H a n g Z h o u"), where a line of words
  // has it in one gap a word.
  bool letter_spaced = false;
};

LatinSpacing SpacingOf(const DecodedText& d, const std::vector<ScriptClass>& classes) {
  std::vector<int> gaps;
  int with_evidence = 0;
  for (size_t k = 1; k < classes.size(); ++k) {
    if (IsLatin(classes[k - 1]) && IsLatin(classes[k])) {
      gaps.push_back(d.blanks_before[k]);
      with_evidence += d.space_before[k] >= kWordSpaceEvidence ? 1 : 0;
    }
  }
  if (gaps.empty())
    return {};
  auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  return {*mid, 2 * static_cast<size_t>(with_evidence) > gaps.size()};
}

// An underscore joins what is on either side ("best_accuracy", "ch_det_mv3"): identifiers are
// set without spaces, however wide the gap beside it looks.
bool BesideUnderscore(const DecodedText& d, size_t k) {
  return CharText(d, k - 1) == "_" || CharText(d, k) == "_";
}

// Whether the gap before character k is a word space.
bool IsWordSpace(const DecodedText& d, const std::vector<ScriptClass>& classes, size_t k,
                 const LatinSpacing& spacing) {
  const ScriptClass a = classes[k - 1];
  const ScriptClass b = classes[k];
  if (IsLatin(a) && IsLatin(b)) {
    if (d.space_before[k] < kWordSpaceEvidence || BesideUnderscore(d, k))
      return false;
    // In small or blurred print a word gap spans no more columns than the gaps inside words
    // (2 to 3 columns a letter), so a gap as wide as the usual one is a space where the evidence
    // is there; a narrower one is not. Letter-spaced text has evidence in most gaps, and there
    // only a gap wider than the usual one parts two words.
    return spacing.letter_spaced ? d.blanks_before[k] > spacing.letter_gap
                                 : d.blanks_before[k] >= spacing.letter_gap;
  }
  // Mixed lines space Latin words and numbers from the CJK text around them ("使用 Shift 输入");
  // a change of script needs no wider gap to be a word boundary. Not ASCII punctuation, which
  // CJK text also sets tight ("名称&编号", "数量(视情况").
  if ((a == ScriptClass::kLatinLetter && b == ScriptClass::kCjk) ||
      (a == ScriptClass::kCjk && b == ScriptClass::kLatinLetter)) {
    return d.space_before[k] >= kScriptChangeSpaceEvidence;
  }
  return false;
}

}  // namespace

void InsertWordSpaces(DecodedText& decoded) {
  const size_t n = decoded.char_offsets.size();
  if (decoded.columns.size() != n || decoded.char_confidences.size() != n ||
      decoded.space_before.size() != n || decoded.blanks_before.size() != n) {
    return;  // not from CtcGreedyDecode: nothing to go by
  }
  const std::vector<ScriptClass> classes = Classes(decoded);
  const LatinSpacing spacing = SpacingOf(decoded, classes);
  DecodedText out;
  out.confidence = decoded.confidence;
  out.column_width = decoded.column_width;
  auto append = [&out](std::string_view text, int column, float confidence, float space_before,
                       int blanks_before) {
    out.char_offsets.push_back(static_cast<int>(out.text.size()));
    out.text += text;
    out.columns.push_back(column);
    out.char_confidences.push_back(confidence);
    out.space_before.push_back(space_before);
    out.blanks_before.push_back(blanks_before);
  };
  bool last_is_space = true;  // drops spaces at the start
  for (size_t k = 0; k < n; ++k) {
    const std::string_view text = CharText(decoded, k);
    if (text == " ") {
      if (!last_is_space) {
        append(text, decoded.columns[k], decoded.char_confidences[k], decoded.space_before[k],
               decoded.blanks_before[k]);
      }
      last_is_space = true;
      continue;
    }
    if (!last_is_space && IsWordSpace(decoded, classes, k, spacing)) {
      append(" ", decoded.columns[k], decoded.space_before[k], 0.0f, 0);
    }
    append(text, decoded.columns[k], decoded.char_confidences[k], decoded.space_before[k],
           decoded.blanks_before[k]);
    last_is_space = false;
  }
  if (last_is_space && !out.char_offsets.empty()) {  // a space at the end
    out.text.resize(static_cast<size_t>(out.char_offsets.back()));
    out.char_offsets.pop_back();
    out.columns.pop_back();
    out.char_confidences.pop_back();
    out.space_before.pop_back();
    out.blanks_before.pop_back();
  }
  decoded = std::move(out);
}

}  // namespace ocr::pipeline
