// Whole-file read and write helpers for tests that check files on disk.
#ifndef MAPR_TESTS_TESTING_FILES_H_
#define MAPR_TESTS_TESTING_FILES_H_

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace mapr::testing {

// Reads a whole file; nullopt if it cannot be opened.
inline std::optional<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Replaces the file's content.
inline void WriteFile(const std::filesystem::path& path,
                      const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_FILES_H_
