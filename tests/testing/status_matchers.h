// GoogleTest matchers for absl::Status (Debian's Abseil ships none).
#ifndef MAPR_TESTS_TESTING_STATUS_MATCHERS_H_
#define MAPR_TESTS_TESTING_STATUS_MATCHERS_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mapr::testing {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& s = ::mapr::testing::GetStatus(arg);
  if (!s.ok()) *result_listener << "status: " << s.ToString();
  return s.ok();
}

MATCHER_P2(StatusIs, code, message_matcher, "") {
  const absl::Status& s = ::mapr::testing::GetStatus(arg);
  *result_listener << "status: " << s.ToString();
  return s.code() == code &&
         ::testing::Matches(message_matcher)(std::string(s.message()));
}

}  // namespace mapr::testing

#define MAPR_TESTING_CONCAT_IMPL(a, b) a##b
#define MAPR_TESTING_CONCAT(a, b) MAPR_TESTING_CONCAT_IMPL(a, b)
#define ASSERT_OK(expr) ASSERT_THAT((expr), ::mapr::testing::IsOk())
#define EXPECT_OK(expr) EXPECT_THAT((expr), ::mapr::testing::IsOk())
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                          \
  auto MAPR_TESTING_CONCAT(statusor_, __LINE__) = (expr);        \
  ASSERT_THAT(MAPR_TESTING_CONCAT(statusor_, __LINE__).status(), \
              ::mapr::testing::IsOk());                          \
  lhs = std::move(MAPR_TESTING_CONCAT(statusor_, __LINE__)).value()

#endif  // MAPR_TESTS_TESTING_STATUS_MATCHERS_H_
