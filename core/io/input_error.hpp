// InputError: a bad input, told in a way a user can act on: the file, the JSON pointer, what was expected.
// Thrown by core/io readers and caught at the CLI boundary, which prints it and exits 2.
#pragma once

#include <stdexcept>
#include <string>

namespace tt {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string pointer, std::string expected);
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& expected() const { return expected_; }

 private:
  std::string file_;
  std::string pointer_;
  std::string expected_;
};

}  // namespace tt
