// The one declaration of the reading options: the spellings of booleans, each kind's rule, and
// every option read back as it was set, in the text the forms and flags use.
#include "document/request_options.h"

#include <string>

#include <gtest/gtest.h>

namespace ocr::document {
namespace {

// marker's clients send pydantic's spellings; an HTML checkbox sends "on".
TEST(RequestOptionsTest, BooleansTakeMarkersSpellings) {
  for (const char* yes : {"true", "True", "TRUE", "1", "yes", "Yes", "on", "ON", "t", "T", "y"}) {
    SCOPED_TRACE(yes);
    const Result<bool> b = ParseBoolText("paginate_output", yes);
    ASSERT_TRUE(b.ok());
    EXPECT_TRUE(*b);
  }
  for (const char* no : {"false", "False", "0", "no", "NO", "off", "Off", "f", "F", "n", "N"}) {
    SCOPED_TRACE(no);
    const Result<bool> b = ParseBoolText("paginate_output", no);
    ASSERT_TRUE(b.ok());
    EXPECT_FALSE(*b);
  }
  for (const char* bad : {"", "2", "tru", "yess", "onn", "none", " true"})
    EXPECT_FALSE(ParseBoolText("paginate_output", bad).ok()) << "'" << bad << "'";
}

TEST(RequestOptionsTest, EachKindStatesItsRule) {
  const RequestOption* drop = FindRequestOption("drop_score");
  const RequestOption* side = FindRequestOption("det_limit_side_len");
  const RequestOption* type = FindRequestOption("det_limit_type");
  const RequestOption* cls = FindRequestOption("cls");
  ASSERT_NE(drop, nullptr);
  ASSERT_NE(side, nullptr);
  ASSERT_NE(type, nullptr);
  ASSERT_NE(cls, nullptr);
  EXPECT_EQ(FindRequestOption("image"), nullptr);
  EXPECT_EQ(OptionRule(*drop), "drop_score must be a number from 0 to 1");
  EXPECT_EQ(OptionRule(*side), "det_limit_side_len must be a whole number from 32 to 4000");
  EXPECT_EQ(OptionRule(*type), "det_limit_type must be max, min or auto");
  EXPECT_EQ(OptionRule(*cls, "--cls"),
            "--cls must be a boolean: true/false, 1/0, yes/no, on/off, t/f or y/n");
  for (const auto& [option, text] :
       std::initializer_list<std::pair<const RequestOption*, const char*>>{{drop, "1.5"},
                                                                           {drop, "-0.1"},
                                                                           {drop, "nan"},
                                                                           {drop, "0.5x"},
                                                                           {side, "31"},
                                                                           {side, "4001"},
                                                                           {side, "960.0"},
                                                                           {type, "MAX"},
                                                                           {type, "fast"},
                                                                           {cls, "maybe"}}) {
    const Result<OptionValue> value = ParseOptionText(*option, text);
    EXPECT_EQ(value.status().code(), StatusCode::kInvalidArgument) << option->name << "=" << text;
    EXPECT_EQ(value.status().message(), OptionRule(*option)) << option->name << "=" << text;
  }
  // A typed value of another kind is refused too (a JSON string for a number).
  DocumentOptions options;
  EXPECT_FALSE(SetOption(*drop, OptionValue(std::string("0.5")), options).ok());
  EXPECT_FALSE(SetOption(*side, OptionValue(960.0), options).ok());
}

TEST(RequestOptionsTest, EveryOptionReadsBackWhatWasSet) {
  const DocumentOptions defaults;
  for (const RequestOption& option : RequestOptions()) {
    SCOPED_TRACE(std::string(option.name));
    ASSERT_FALSE(option.name.empty());
    ASSERT_NE(option.get, nullptr);
    ASSERT_NE(option.set, nullptr);
    const OptionValue initial = option.get(defaults);
    ASSERT_TRUE(CheckOption(option, initial).ok()) << "the default breaks its own rule";
    // Another valid value of the option, set through its text, reads back the same.
    std::string other;
    switch (option.kind) {
      case OptionKind::kBool:
        other = std::get<bool>(initial) ? "off" : "on";
        break;
      case OptionKind::kNumber:
        other = "0.25";
        break;
      case OptionKind::kWholeNumber:
        other = "1234";
        break;
      case OptionKind::kChoice:
        other = std::string(option.choices.substr(0, option.choices.find('|')));
        break;
      case OptionKind::kText:
        other = "1-2";
        break;
    }
    const Result<OptionValue> value = ParseOptionText(option, other);
    ASSERT_TRUE(value.ok()) << value.status().ToString();
    DocumentOptions options;
    ASSERT_TRUE(SetOption(option, *value, options).ok());
    EXPECT_EQ(option.get(options), *value);
    EXPECT_EQ(OptionText(*value), option.kind == OptionKind::kBool
                                      ? (std::get<bool>(*value) ? "true" : "false")
                                      : other);
    EXPECT_FALSE(option.help.empty());
  }
}

}  // namespace
}  // namespace ocr::document
