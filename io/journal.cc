// The journal input (mapr/journal.h): sd-journal entries as JSON lines in
// journalctl's `-o json --all` shape. Built with libsystemd when CMake finds
// it (MAPR_HAVE_JOURNAL); without it, Open() says what is missing.
#include "mapr/journal.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "mapr/log_format.h"
#include "util/strings.h"

#if MAPR_HAVE_JOURNAL
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>
#endif

namespace mapr {
namespace {

// Decodes the UTF-8 sequence at p[0, n) by systemd's rules
// (utf8_encoded_valid_unichar): the length its lead byte names, continuation
// bytes, the shortest form, and a valid code point (below 0x110000, not a
// surrogate, not a noncharacter). Returns the length, or 0 if invalid.
size_t DecodeUtf8(const unsigned char* p, size_t n, char32_t* out) {
  const unsigned char c = p[0];
  size_t len;
  char32_t cp;
  if (c < 0x80) {
    *out = c;
    return 1;
  }
  if ((c & 0xe0) == 0xc0) {
    len = 2;
    cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    len = 3;
    cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (len > n) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3f);
  }
  const size_t shortest = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  if (shortest != len) return 0;
  if (cp >= 0x110000) return 0;
  if ((cp & 0xfffff800) == 0xd800) return 0;
  if (cp >= 0xfdd0 && cp <= 0xfdef) return 0;
  if ((cp & 0xfffe) == 0xfffe) return 0;
  *out = cp;
  return len;
}

// journalctl's unichar_is_control: C0 but tab and newline, DEL and C1.
bool IsControl(char32_t cp) {
  return (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7f && cp <= 0x9f);
}

void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

void AppendValue(std::string_view value, std::string* out) {
  if (JournalValueIsText(value)) {
    AppendJsonString(value, out);
    return;
  }
  out->push_back('[');
  for (size_t i = 0; i < value.size(); ++i) {
    if (i > 0) out->push_back(',');
    absl::StrAppend(
        out, static_cast<unsigned>(static_cast<unsigned char>(value[i])));
  }
  out->push_back(']');
}

std::string_view FieldName(std::string_view item) {
  const size_t eq = item.find('=');
  return eq == std::string_view::npos ? std::string_view() : item.substr(0, eq);
}

// Whether the item `item` ("NAME=value") is of the field `name`.
bool HasName(std::string_view item, std::string_view name) {
  return item.size() > name.size() && item[name.size()] == '=' &&
         item.substr(0, name.size()) == name;
}

}  // namespace

bool JournalValueIsText(std::string_view value) {
  const auto* p = reinterpret_cast<const unsigned char*>(value.data());
  size_t n = value.size();
  while (n > 0) {
    char32_t cp;
    const size_t len = DecodeUtf8(p, n, &cp);
    if (len == 0 || IsControl(cp)) return false;
    p += len;
    n -= len;
  }
  return true;
}

void AppendJournalJson(std::string_view cursor, uint64_t realtime_usec,
                       uint64_t monotonic_usec, std::string_view boot_id,
                       std::span<const std::string_view> fields,
                       std::string* out) {
  out->push_back('{');
  bool first = true;
  auto key = [&](std::string_view name) {
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(name, out);
    out->push_back(':');
  };
  if (!cursor.empty()) {
    key("__CURSOR");
    AppendValue(cursor, out);
  }
  key("__REALTIME_TIMESTAMP");
  absl::StrAppend(out, "\"", realtime_usec, "\"");
  key("__MONOTONIC_TIMESTAMP");
  absl::StrAppend(out, "\"", monotonic_usec, "\"");
  if (!boot_id.empty()) {
    key("_BOOT_ID");
    AppendValue(boot_id, out);
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string_view name = FieldName(fields[i]);
    // journalctl prints the entry's boot id once, from its header; a
    // journal written by hand could repeat the other header names, or hold
    // a name that is no text (journald writes neither).
    if (name.empty() || name == "_BOOT_ID" || name == "__CURSOR" ||
        name == "__REALTIME_TIMESTAMP" || name == "__MONOTONIC_TIMESTAMP" ||
        !JournalValueIsText(name)) {
      continue;
    }
    // Entries rarely repeat a name: one scan tells whether this is its
    // first item (else it was printed with that one) and how many there are.
    bool seen = false;
    size_t count = 1;
    for (size_t k = 0; k < fields.size() && !seen; ++k) {
      if (k == i || !HasName(fields[k], name)) continue;
      seen = k < i;
      ++count;
    }
    if (seen) continue;
    key(name);
    if (count == 1) {
      AppendValue(fields[i].substr(name.size() + 1), out);
      continue;
    }
    out->push_back('[');
    bool first_value = true;
    for (size_t k = i; k < fields.size(); ++k) {
      if (!HasName(fields[k], name)) continue;
      if (!first_value) out->push_back(',');
      first_value = false;
      AppendValue(fields[k].substr(name.size() + 1), out);
    }
    out->push_back(']');
  }
  out->push_back('}');
}

absl::Status JournalReader::ReadAll(Sink sink) {
  absl::StatusOr<size_t> n = Read(std::numeric_limits<size_t>::max(), sink);
  return n.ok() ? absl::OkStatus() : n.status();
}

#if MAPR_HAVE_JOURNAL

bool JournalSupported() { return true; }

namespace {

absl::Status JournalError(int negative_errno, std::string_view what) {
  return absl::ErrnoToStatus(-negative_errno, util::ToAbsl(what));
}

class SdJournalReader final : public JournalReader {
 public:
  explicit SdJournalReader(sd_journal* j) : j_(j) {}
  ~SdJournalReader() override { sd_journal_close(j_); }
  SdJournalReader(const SdJournalReader&) = delete;
  SdJournalReader& operator=(const SdJournalReader&) = delete;

  // Positions the reader after `cursor` (an entry that no longer exists:
  // before the first entry after it).
  absl::Status SeekAfter(const std::string& cursor) {
    int r = sd_journal_seek_cursor(j_, cursor.c_str());
    if (r < 0) {
      return r == -EINVAL ? absl::InvalidArgumentError(absl::StrCat(
                                "malformed journal cursor '", cursor, "'"))
                          : JournalError(r, "seeking the journal cursor");
    }
    r = sd_journal_next(j_);
    if (r < 0) return JournalError(r, "reading the journal");
    if (r > 0 && sd_journal_test_cursor(j_, cursor.c_str()) <= 0) {
      pending_ = true;  // The cursor's entry is gone: this one comes next.
    }
    cursor_ = cursor;
    return absl::OkStatus();
  }

  absl::StatusOr<size_t> Read(size_t max_entries, Sink sink) override {
    size_t read = 0;
    buffer_.clear();
    ends_.clear();
    while (read < max_entries) {
      if (pending_) {
        pending_ = false;
      } else {
        const int r = sd_journal_next(j_);
        if (r < 0) {
          return absl::DataLossError(
              absl::StrCat("reading the journal: ", std::strerror(-r)));
        }
        if (r == 0) break;
      }
      if (absl::Status s = AppendEntry(); !s.ok()) return s;
      ++read;
      if (ends_.size() == kMaxBatchRows) {
        if (absl::Status s = Flush(sink); !s.ok()) return s;
      }
    }
    if (!ends_.empty()) {
      if (absl::Status s = Flush(sink); !s.ok()) return s;
    }
    return read;
  }

  absl::StatusOr<bool> Wait(absl::Duration timeout) override {
    const uint64_t usec =
        timeout <= absl::ZeroDuration()
            ? 0
            : static_cast<uint64_t>(absl::ToInt64Microseconds(timeout));
    if (!poll_) {
      const int r = sd_journal_wait(j_, usec);
      if (r >= 0) return r != SD_JOURNAL_NOP;
      // Journals opened by file name cannot be watched on every system
      // (EDESTADDRREQ, EMEDIUMTYPE): look for new entries every timeout.
      poll_ = true;
    }
    absl::SleepFor(timeout);
    // New entries appended to the files are seen by the next Read() once
    // sd-journal has refreshed their mappings.
    const int r = sd_journal_process(j_);
    if (r < 0 && r != -EDESTADDRREQ && r != -EMEDIUMTYPE && r != -EINVAL) {
      return JournalError(r, "following the journal");
    }
    return true;
  }

  const std::string& cursor() const override { return cursor_; }
  uint64_t entries() const override { return entries_; }

 private:
  absl::Status AppendEntry() {
    uint64_t realtime = 0;
    int r = sd_journal_get_realtime_usec(j_, &realtime);
    if (r < 0) return JournalError(r, "reading a journal entry's time");
    uint64_t monotonic = 0;
    sd_id128_t boot;
    r = sd_journal_get_monotonic_usec(j_, &monotonic, &boot);
    if (r < 0) return JournalError(r, "reading a journal entry's time");
    char boot_id[SD_ID128_STRING_MAX];
    sd_id128_to_string(boot, boot_id);
    char* cursor = nullptr;
    r = sd_journal_get_cursor(j_, &cursor);
    if (r < 0) return JournalError(r, "reading a journal entry's cursor");
    last_cursor_.assign(cursor);
    std::free(cursor);

    // The data may live in a mapped window that a later call unmaps: copy
    // each item before the next.
    items_.clear();
    item_ends_.clear();
    sd_journal_restart_data(j_);
    const void* data = nullptr;
    size_t length = 0;
    while ((r = sd_journal_enumerate_data(j_, &data, &length)) > 0) {
      items_.append(static_cast<const char*>(data), length);
      item_ends_.push_back(items_.size());
    }
    if (r < 0) return JournalError(r, "reading a journal entry's fields");
    fields_.clear();
    size_t begin = 0;
    for (const size_t end : item_ends_) {
      fields_.push_back(std::string_view(items_).substr(begin, end - begin));
      begin = end;
    }
    AppendJournalJson(last_cursor_, realtime, monotonic, boot_id, fields_,
                      &buffer_);
    ends_.push_back(buffer_.size());
    return absl::OkStatus();
  }

  absl::Status Flush(Sink sink) {
    lines_.clear();
    size_t begin = 0;
    for (const size_t end : ends_) {
      lines_.push_back(std::string_view(buffer_).substr(begin, end - begin));
      begin = end;
    }
    absl::Status s = sink(lines_);
    if (!s.ok()) return s;
    entries_ += ends_.size();
    cursor_ = last_cursor_;
    buffer_.clear();
    ends_.clear();
    return absl::OkStatus();
  }

  sd_journal* j_;
  bool poll_ = false;  // Wait() sleeps: sd_journal_wait() cannot watch.
  bool pending_ = false;
  std::string cursor_;
  std::string last_cursor_;
  uint64_t entries_ = 0;
  std::string buffer_;
  std::vector<size_t> ends_;
  std::vector<std::string_view> lines_;
  std::string items_;
  std::vector<size_t> item_ends_;
  std::vector<std::string_view> fields_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<JournalReader>> JournalReader::Open(
    const JournalSpec& spec) {
  if (!spec.files.empty() && !spec.directory.empty()) {
    return absl::InvalidArgumentError(
        "give journal files or a journal directory, not both");
  }
  sd_journal* j = nullptr;
  int r;
  if (!spec.files.empty()) {
    std::vector<const char*> paths;
    for (const std::string& f : spec.files) paths.push_back(f.c_str());
    paths.push_back(nullptr);
    r = sd_journal_open_files(&j, paths.data(), 0);
    if (r < 0) {
      return JournalError(
          r, spec.files.size() == 1
                 ? absl::StrCat("journal file ", spec.files[0])
                 : absl::StrCat("journal files ", spec.files[0], ", ..."));
    }
  } else if (!spec.directory.empty()) {
    r = sd_journal_open_directory(&j, spec.directory.c_str(), 0);
    if (r < 0) {
      return JournalError(r,
                          absl::StrCat("journal directory ", spec.directory));
    }
  } else {
    r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
    if (r < 0) return JournalError(r, "the system journal");
  }
  auto reader = std::make_unique<SdJournalReader>(j);
  if (!spec.after_cursor.empty()) {
    if (absl::Status s = reader->SeekAfter(spec.after_cursor); !s.ok()) {
      return s;
    }
  }
  return reader;
}

#else  // !MAPR_HAVE_JOURNAL

bool JournalSupported() { return false; }

absl::StatusOr<std::unique_ptr<JournalReader>> JournalReader::Open(
    const JournalSpec& /*spec*/) {
  return absl::UnimplementedError(
      "this mapr was built without libsystemd, so it cannot read the "
      "journal; install libsystemd-dev and build it again, or pipe "
      "`journalctl -o json --all` into `logformat journal`");
}

#endif  // MAPR_HAVE_JOURNAL

}  // namespace mapr
