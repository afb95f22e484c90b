#include "runtime/combine_states.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "util/run_on_threads.h"
#include "util/strings.h"

namespace mapr::runtime {
namespace {

// The slot as a query names it: count($line), histogram(x, 10).
std::string SlotName(const plan::Plan& plan, size_t slot) {
  const plan::StateSlot& s = plan.slots[slot];
  return absl::StrCat(util::ToAbsl(s.aggregate->name), "(",
                      plan.fields[s.field].name,
                      s.parameter.empty() ? "" : ", ", s.parameter, ")");
}

}  // namespace

absl::Status CombineSlots(
    const plan::Plan& plan,
    std::span<const std::unique_ptr<AggregateState>> into,
    std::span<const std::unique_ptr<AggregateState>> later, const uint32_t* to,
    size_t n, size_t threads) {
  std::vector<CombineStatus> outcome(into.size(), CombineStatus::kOk);
  threads = std::clamp<size_t>(threads, 1, std::max<size_t>(into.size(), 1));
  util::RunOnThreads(threads, [&](size_t t) {
    for (size_t k = t; k < into.size(); k += threads) {
      if (into[k] != nullptr) outcome[k] = into[k]->Combine(*later[k], to, n);
    }
  });
  for (size_t k = 0; k < outcome.size(); ++k) {
    if (outcome[k] == CombineStatus::kOk) continue;
    return absl::DataLossError(
        absl::StrCat(SlotName(plan, k), " overflows when merged: ",
                     outcome[k] == CombineStatus::kSumOverflow
                         ? "a group's exact sum reaches 2^1086"
                         : "a group's counts pass 64 bits",
                     " (the partials cannot be of real input)"));
  }
  return absl::OkStatus();
}

}  // namespace mapr::runtime
