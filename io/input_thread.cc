// DecoderThread (io/input_internal.h): a decoder run on a thread of its
// own, a few buffers ahead of the reader, so that decompressing and parsing
// use two cores.
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "io/input_internal.h"
#include "mapr/log_format.h"
#include "util/prefault.h"

namespace mapr::input_internal {

DecoderThread::DecoderThread(std::unique_ptr<ByteStream> decoder)
    : decoder_(std::move(decoder)),
      interrupt_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

DecoderThread::~DecoderThread() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    slot_freed_.Signal();
  }
  // Wakes the worker if it waits for input from a pipe (FdStream polls
  // this descriptor beside its own); a wait for a free buffer ends with
  // stop_. Decoding itself ends within one buffer.
  if (interrupt_fd_ >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t r = write(interrupt_fd_, &one, sizeof(one));
  }
  if (worker_.joinable()) worker_.join();
  if (interrupt_fd_ >= 0) close(interrupt_fd_);
}

bool DecoderThread::Start() {
  started_ = true;
  // The buffers are allocated by the worker as it first fills each: a
  // megabyte costs a few milliseconds of page faults here, which would
  // delay the first decoded bytes.
  try {
    worker_ = std::thread([this] { Work(); });
  } catch (const std::system_error&) {
    return false;  // No thread to be had: decode on the reader's thread.
  }
  return true;
}

// A buffer for decoded bytes and the padding after them, prefaulted as it
// will be filled; not zeroed, as its filler defines the padding after what
// it wrote.
static std::unique_ptr<char[]> NewSlotBuffer() {
  constexpr size_t kBytes = kDecoderThreadBufferBytes + kLinePadding;
  std::unique_ptr<char[]> buffer(new (std::nothrow) char[kBytes]);
  util::PrefaultForWrite(buffer.get(), kBytes);
  return buffer;
}

void DecoderThread::Work() {
  for (;;) {
    size_t index;
    {
      absl::MutexLock lock(&mu_);
      while (!stop_ && filled_ == kDecoderThreadBuffers) {
        slot_freed_.Wait(&mu_);
      }
      if (stop_) return;
      index = (head_ + filled_) % kDecoderThreadBuffers;
    }
    // The slot is the worker's until it is counted in filled_.
    Slot& slot = slots_[index];
    slot.size = 0;
    slot.status = absl::OkStatus();
    slot.end = false;
    if (slot.data == nullptr) slot.data = NewSlotBuffer();
    if (slot.data == nullptr) {
      slot.status = absl::ResourceExhaustedError("out of memory");
    }
    while (slot.status.ok() && slot.size < kDecoderThreadBufferBytes &&
           (!eager_ || slot.size == 0)) {
      absl::StatusOr<size_t> n = decoder_->Read(
          slot.data.get() + slot.size, kDecoderThreadBufferBytes - slot.size);
      if (!n.ok()) {
        slot.status = n.status();
        break;
      }
      if (*n == 0) {
        slot.end = true;
        break;
      }
      slot.size += *n;
    }
    // The padding is defined, though a reader never depends on its bytes.
    if (slot.data != nullptr) {
      std::memset(slot.data.get() + slot.size, 0, kLinePadding);
    }
    const bool last = slot.end || !slot.status.ok();
    {
      absl::MutexLock lock(&mu_);
      ++filled_;
      slot_filled_.Signal();
    }
    if (last) return;
  }
}

absl::StatusOr<size_t> DecoderThread::Read(char* buf, size_t n) {
  absl::StatusOr<std::string_view> bytes = Borrow(n);
  if (!bytes.ok()) return bytes.status();
  // An empty view may have no data pointer, and memcpy must not see one.
  if (!bytes->empty()) std::memcpy(buf, bytes->data(), bytes->size());
  return bytes->size();
}

absl::StatusOr<std::string_view> DecoderThread::Borrow(size_t n) {
  if (!error_.ok()) return error_;
  if (ended_ || n == 0) return std::string_view();
  if (!started_ && !Start()) inline_ = true;
  if (inline_) {
    // No worker: decode into the first buffer, if there is one.
    Slot& slot = slots_[0];
    if (slot.data == nullptr) {
      slot.data = NewSlotBuffer();
      if (slot.data == nullptr) {
        error_ = absl::ResourceExhaustedError("out of memory");
        return error_;
      }
    }
    absl::StatusOr<size_t> r =
        decoder_->Read(slot.data.get(), std::min(n, kDecoderThreadBufferBytes));
    if (!r.ok()) {
      error_ = r.status();
      return error_;
    }
    if (*r == 0) ended_ = true;
    std::memset(slot.data.get() + *r, 0, kLinePadding);
    return std::string_view(slot.data.get(), *r);
  }
  for (;;) {
    if (current_ == nullptr) {
      absl::MutexLock lock(&mu_);
      while (filled_ == 0) slot_filled_.Wait(&mu_);
      current_ = &slots_[head_];
      pos_ = 0;
    }
    // Filled slots are the reader's until it hands them back below; the
    // view stays valid until the next call, as the slot is handed back
    // only by a later call.
    if (pos_ < current_->size) {
      const size_t k = std::min(n, current_->size - pos_);
      const std::string_view bytes(current_->data.get() + pos_, k);
      pos_ += k;
      return bytes;
    }
    // The slot is spent: its error or end comes after its bytes.
    if (!current_->status.ok()) {
      error_ = current_->status;
      return error_;
    }
    if (current_->end) {
      ended_ = true;
      return std::string_view();
    }
    current_ = nullptr;
    absl::MutexLock lock(&mu_);
    head_ = (head_ + 1) % kDecoderThreadBuffers;
    --filled_;
    slot_freed_.Signal();
  }
}

}  // namespace mapr::input_internal
