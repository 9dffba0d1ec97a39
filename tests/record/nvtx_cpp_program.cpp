/*
 * tests/record/nvtx_cpp_program.cpp - an annotated program written only
 * against NVIDIA's C++ wrapper nvtx3.hpp (header-only), recorded by
 * tests/record/record_test.sh: scoped ranges in the global domain and in a
 * domain of its own (a struct tag), a registered string, a named category,
 * a mark with a color and a payload, and a unique_range (start/end) that
 * another thread ends.
 */
#include <nvtx3/nvtx3.hpp>

#include <thread>
#include <utility>

struct solver_domain {
    static constexpr char const* name{"solver"};
};

struct tag_iteration {
    static constexpr char const* message{"iteration"};
};

struct category_io {
    static constexpr char const* name{"io"};
    static constexpr uint32_t id{11};
};

int main() {
    auto const& iteration = nvtx3::registered_string_in<solver_domain>::get<tag_iteration>();
    auto const& io = nvtx3::named_category_in<solver_domain>::get<category_io>();
    {
        nvtx3::scoped_range outer{"outer"};
        for (int i = 0; i < 3; i++) {
            nvtx3::scoped_range_in<solver_domain> step{iteration, io};
        }
        nvtx3::mark(nvtx3::event_attributes{"checkpoint", nvtx3::rgb{255, 0, 0},
                                            nvtx3::payload{7}});
    }
    nvtx3::unique_range async{"async"};
    std::thread ender([moved = std::move(async)]() mutable {
        nvtx3::unique_range done{std::move(moved)};
    });
    ender.join();
    return 0;
}
