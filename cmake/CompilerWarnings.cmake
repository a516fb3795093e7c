# One INTERFACE target carries the warning flags (google/benchmark's list).
# -Werror is not set here: CI turns it on through CMAKE_COMPILE_WARNING_AS_ERROR (asan preset).
add_library(schedlab_warnings INTERFACE)
target_compile_options(schedlab_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual -Wsuggest-override -Wimplicit-fallthrough)
