// SPDX-License-Identifier: MIT
//
// dwarf_work_cpp.cc - the C++ workload test_cmd_dwarf profiles with
// --call-graph dwarf: main -> geo::total -> geo::Circle::area (a virtual
// call), hot in area, built -O2 without frame pointers.
#include <cstdlib>
#include <memory>
#include <vector>

// Each function stays one function of its own: no inlining, no clones.
#if defined(__clang__)
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noinline, noipa))
#endif

namespace geo {

struct Shape {
	virtual ~Shape() = default;
	virtual double area(unsigned long steps) const = 0;
};

struct Circle : Shape {
	explicit Circle(double radius) : r(radius) {}
	double area(unsigned long steps) const override;
	double r;
};

KEEP double Circle::area(unsigned long steps) const
{
	volatile double sum = 0;

	for (unsigned long i = 0; i < steps; i++)
		sum = sum + r * r / static_cast<double>(i + 1);
	return sum;
}

KEEP double total(const std::vector<std::unique_ptr<Shape>> &shapes,
					      unsigned long steps)
{
	double t = 0;

	for (const auto &s : shapes)
		t += s->area(steps);
	return t;
}

} // namespace geo

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 300;
	std::vector<std::unique_ptr<geo::Shape>> shapes;
	double t = 0;

	shapes.push_back(std::make_unique<geo::Circle>(1.5));
	for (unsigned long k = 0; k < rounds; k++)
		t += geo::total(shapes, 400000);
	return t > 0 ? 0 : 1;
}
