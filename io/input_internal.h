// io/input_internal.h: the decoders behind mapr/input.h. Not installed
// (cmake/mapr_install.cmake skips mapr/*_internal.h).
//
// Why the input layer lives in mapr/ rather than in runtime/ (as the outfile
// writer does, behind mapr/outfile.h): its public interface type, ByteStream,
// is what the decoders implement, and ReadLines() is built on
// mapr::LineSplitter; runtime/ may include neither (only the vocabulary
// headers), so a runtime/ copy would need a second stream interface and
// adapters for no gain. Nothing in runtime/ reads files. The code is split
// by job: io/input.cc (detection, opening, lines, PushFile) and
// io/input_decoders.cc (one ByteStream per compression library).
#ifndef MAPR_MAPR_INPUT_INTERNAL_H_
#define MAPR_MAPR_INPUT_INTERNAL_H_

#include <array>
#include <cstddef>
#include <memory>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "mapr/input.h"

namespace mapr::input_internal {

// A stream of the decompressed bytes of `compressed`, which holds data in
// `compression`'s format. REQUIRES: `compression` is kGzip, kZstd, kXz or
// kBzip2. The decoders' error messages are listed in io/input_decoders.cc.
std::unique_ptr<ByteStream> NewDecoder(Compression compression,
                                       std::unique_ptr<ByteStream> compressed);

// Makes the gzip decoders created afterwards inflate every member with zlib
// (true) or, as by default, with ISA-L where they can (false). For tests,
// which run every gzip case through both libraries; not for use while
// other threads open input.
void SetGzipZlibOnlyForTesting(bool zlib_only);

// The status of an OS error: its code (absl::ErrnoToStatusCode) and the
// reason only ("No such file or directory"), as mapr/input.h returns them.
absl::Status ErrnoError(int error_number);

// The decoded bytes a DecoderThread holds ahead of its reader: at most
// kDecoderThreadBuffers buffers of kDecoderThreadBufferBytes (4 MiB per
// stream). Large enough that a handover (a mutex, perhaps a wake-up) is
// rare next to the work on a buffer; small enough for the L3 cache and the
// command's memory bound.
inline constexpr size_t kDecoderThreadBuffers = 4;
inline constexpr size_t kDecoderThreadBufferBytes = size_t{1} << 20;

// A ByteStream that runs `decoder` on a worker thread of its own, started
// by the first Read(), and hands the decoded bytes to the reader through a
// small ring of buffers: decompressing and parsing overlap on two cores.
// Read() returns the decoder's bytes and then its end or error, in order,
// exactly as the decoder would. Nothing is busy-waited: each side blocks on
// the mutex's condition when the ring is full or empty. The destructor
// stops the worker and joins it: the worker ends within one decoder Read()
// (at most a buffer), or at once when it waits for a pipe whose FdStream
// polls interrupt_fd(). If no thread can be started, Read() decodes on the
// caller's thread. Thread-compatible, like every ByteStream.
class DecoderThread final : public ByteStream {
 public:
  explicit DecoderThread(std::unique_ptr<ByteStream> decoder);
  ~DecoderThread() override;
  DecoderThread(const DecoderThread&) = delete;
  DecoderThread& operator=(const DecoderThread&) = delete;

  absl::StatusOr<size_t> Read(char* buf, size_t n) override;

  // Read() without the copy: the next decoded bytes (at most `n`, n > 0)
  // where the worker put them, valid until the next Borrow() or Read() and
  // followed by at least kLinePadding readable bytes (mapr/log_format.h),
  // so ReadLines() cuts lines straight out of the ring. Empty at the end.
  absl::StatusOr<std::string_view> Borrow(size_t n);

  // An eventfd that becomes readable when the stream is destroyed, for an
  // FdStream under the decoder to poll beside a pipe (-1 if none could be
  // made). REQUIRES: set up before the first Read().
  int interrupt_fd() const { return interrupt_fd_; }

  // The decoder, for the caller to read on its own thread after all.
  // REQUIRES: before the first Read(); the stream is unusable afterwards.
  std::unique_ptr<ByteStream> TakeDecoder() { return std::move(decoder_); }

  // Hands each piece the decoder returns to the reader at once instead of
  // filling a buffer first: for a pipe, whose next bytes may be long in
  // coming while the reader should see the lines already decoded.
  // REQUIRES: called before the first Read().
  void set_eager(bool eager) { eager_ = eager; }

 private:
  // A buffer of decoded bytes; then the end of the input, or an error.
  struct Slot {
    std::unique_ptr<char[]> data;
    size_t size = 0;
    bool end = false;
    absl::Status status;
  };

  // Starts the worker (which allocates the buffers); false if it cannot.
  bool Start();
  // The worker: fills free slots in order until the end or an error.
  void Work();

  // Used by the worker only, once it has started.
  std::unique_ptr<ByteStream> decoder_;
  const int interrupt_fd_;
  bool eager_ = false;  // Set before the worker starts.

  // slots_[head_, head_ + filled_) (mod kDecoderThreadBuffers) are filled
  // and belong to the reader; the others belong to the worker. A slot
  // changes hands only under mu_ (filled_ and head_ change), which orders
  // its contents between the threads.
  std::array<Slot, kDecoderThreadBuffers> slots_;
  // CondVar rather than Mutex::Await: util/absl_mutex_tsan.cc makes
  // CondVar::Wait visible to ThreadSanitizer, Await not.
  absl::Mutex mu_;
  absl::CondVar slot_filled_;  // filled_ went up.
  absl::CondVar slot_freed_;   // filled_ went down, or stop_ was set.
  size_t head_ ABSL_GUARDED_BY(mu_) = 0;
  size_t filled_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;

  // The reader's side.
  bool started_ = false;
  bool inline_ = false;  // No worker: Read() decodes itself.
  Slot* current_ = nullptr;
  size_t pos_ = 0;
  bool ended_ = false;
  absl::Status error_;

  std::thread worker_;  // Joined by the destructor before the rest dies.
};

}  // namespace mapr::input_internal

#endif  // MAPR_MAPR_INPUT_INTERNAL_H_
