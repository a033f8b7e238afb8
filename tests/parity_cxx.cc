// SPDX-License-Identifier: MIT
//
// parity_cxx.cc - the C++ workload test_parity records with
// `--call-graph dwarf`: built -O2 without frame pointers, so only the
// DWARF call frame information leads from the hot functions back to main.
//   parity_cxx MS   computes areas of shapes for MS ms
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace geo {

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};

struct Circle : Shape {
	explicit Circle(double r) : r_(r) {}
	__attribute__((noinline)) double area() const override
	{
		double a = 0;
		for (int i = 0; i < 200; i++)
			a += M_PI * r_ * r_ / (1.0 + std::sqrt(static_cast<double>(i)));
		return a;
	}
	double r_;
};

struct Square : Shape {
	explicit Square(double s) : s_(s) {}
	__attribute__((noinline)) double area() const override
	{
		double a = 0;
		for (int i = 0; i < 100; i++)
			a += s_ * s_ / (1.0 + i);
		return a;
	}
	double s_;
};

template <typename Shapes>
__attribute__((noinline)) double total_area(const Shapes &shapes)
{
	double sum = 0;
	for (const auto &s : shapes)
		sum += s->area();
	return sum;
}

} // namespace geo

volatile double sink;

int main(int argc, char **argv)
{
	/* strtod, not atof: glibc's headers inline atof, which perf names otherwise
	 * (docs/PERF_DIFFERENCES.md, "a C function inlined into C++ code"). */
	double ms = argc > 1 ? std::strtod(argv[1], nullptr) : 100;
	std::vector<std::unique_ptr<geo::Shape>> shapes;

	for (int i = 0; i < 64; i++) {
		if (i % 2)
			shapes.push_back(std::make_unique<geo::Circle>(i));
		else
			shapes.push_back(std::make_unique<geo::Square>(i));
	}
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(ms);
	while (std::chrono::steady_clock::now() < end)
		sink = geo::total_area(shapes);
	return 0;
}
