#include "parser/function_catalog.h"

#include <optional>
#include <string_view>

#include "gtest/gtest.h"

namespace mapr::plan {
namespace {

TEST(LookupFunctionTest, FindsFunctionsByExactName) {
  EXPECT_EQ(LookupFunction("md5sum"), FunctionKind::kMd5Sum);
  EXPECT_EQ(LookupFunction("maskdigits"), FunctionKind::kMaskDigits);
}

TEST(LookupFunctionTest, RejectsUnknownAndMiscasedNames) {
  for (std::string_view name :
       {"", "MD5SUM", "Md5sum", "md5", "md5sum ", " md5sum", "md5sum(",
        "makedigits", "MaskDigits", "maskdigit", "maskdigitss", "foo"}) {
    EXPECT_EQ(LookupFunction(name), std::nullopt) << "name: " << name;
  }
}

TEST(LookupFunctionTest, NamesRoundTrip) {
  for (FunctionKind kind :
       {FunctionKind::kMd5Sum, FunctionKind::kMaskDigits, FunctionKind::kRegex,
        FunctionKind::kTime, FunctionKind::kBucket, FunctionKind::kDuration,
        FunctionKind::kBytes, FunctionKind::kLower, FunctionKind::kUpper,
        FunctionKind::kLen, FunctionKind::kSubstr, FunctionKind::kSplit,
        FunctionKind::kCoalesce, FunctionKind::kFormatTime}) {
    EXPECT_EQ(LookupFunction(FunctionName(kind)), kind);
  }
  EXPECT_EQ(FunctionName(FunctionKind::kMd5Sum), "md5sum");
  EXPECT_EQ(FunctionName(FunctionKind::kMaskDigits), "maskdigits");
}

TEST(LookupFunctionTest, CatalogListsEveryKindOnce) {
  ASSERT_EQ(Functions().size(), 14u);
  for (const FunctionInfo& f : Functions()) {
    EXPECT_EQ(LookupFunction(f.name), f.kind);
    EXPECT_FALSE(f.summary.empty()) << f.name;
  }
}

}  // namespace
}  // namespace mapr::plan
