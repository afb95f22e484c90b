// A mapr::FieldBatch for the unit tests and fuzz targets of log formats.
// Each Allocate(n) is a heap block of its own of exactly n bytes (1 for
// n == 0), so that ASan reports a parser that writes or reads past what it
// asked for; blocks live as long as the batch. Header-only and needing
// nothing beyond mapr/log_format.h, so libFuzzer targets can use it too.
//
//   mapr::testing::TestFieldBatch batch(fields.size(), mapr::kLinePadding);
//   parser->ParseBatch(lines, batch, outcomes.data());
//   const std::string_view v = batch.column(0)[0];
//   EXPECT_TRUE(v.data() == nullptr || InLine(v) || batch.Owns(v));
#ifndef MAPR_TESTS_TESTING_FIELD_BATCH_H_
#define MAPR_TESTS_TESTING_FIELD_BATCH_H_

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"

namespace mapr::testing {

class TestFieldBatch : public FieldBatch {
 public:
  // All values start missing. `padding` is what line_padding() promises
  // (0 or kLinePadding): the caller's lines must have that many readable
  // bytes after them.
  explicit TestFieldBatch(size_t num_fields, size_t padding = 0)
      : columns_(num_fields, std::vector<std::string_view>(kMaxBatchRows)),
        padding_(padding) {}

  size_t num_fields() const override { return columns_.size(); }
  std::string_view* column(size_t field) override {
    return columns_[field].data();
  }
  char* Allocate(size_t n) override {
    blocks_.push_back({std::make_unique<char[]>(n == 0 ? 1 : n), n});
    return blocks_.back().bytes.get();
  }
  size_t line_padding() const override { return padding_; }

  // Marks every value missing, as the engine does before each ParseBatch,
  // for a test that parses several batches into one. Allocations stay.
  void Clear() {
    for (auto& c : columns_) c.assign(kMaxBatchRows, std::string_view());
  }

  // Whether `v` lies within one block from Allocate: with "points into its
  // line", the FieldBatch contract for a written value.
  bool Owns(std::string_view v) const {
    for (const Block& b : blocks_) {
      if (v.data() >= b.bytes.get() &&
          v.data() + v.size() <= b.bytes.get() + b.size) {
        return true;
      }
    }
    return false;
  }

  // Calls of Allocate so far, for tests of when a parser needs batch memory.
  size_t num_allocations() const { return blocks_.size(); }

 private:
  struct Block {
    std::unique_ptr<char[]> bytes;
    size_t size;  // As asked for: 0 for the 1-byte block of Allocate(0).
  };

  std::vector<std::vector<std::string_view>> columns_;
  std::vector<Block> blocks_;
  size_t padding_;
};

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_FIELD_BATCH_H_
