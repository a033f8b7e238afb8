// SPDX-License-Identifier: MIT
/*
 * report_cxx.cc - the C++ workload the report tests profile: its CPU time
 * goes to member functions of classes in a namespace (geo::Circle::area,
 * geo::Square::area), a function template (geo::total<double>), a member
 * of a class template (geo::Grid<int>::sum), a function in an anonymous
 * namespace and a call operator, so that a profile holds the kinds of C++
 * names perf demangles.
 *
 *   report_cxx [ROUNDS]   runs ROUNDS rounds (default 2000)
 */
#include <cstdlib>
#include <vector>

namespace geo {

struct Shape {
	virtual ~Shape() {}
	virtual double area() const = 0;
};

struct Circle : Shape {
	double r;
	explicit Circle(double x) : r(x) {}
	double area() const override;
};

struct Square : Shape {
	double s;
	explicit Square(double x) : s(x) {}
	double area() const override;
};

__attribute__((noinline)) double Circle::area() const
{
	double a = 0;
	for (int i = 0; i < 2000; i++)
		a += 3.14159 * r * r / (i + 1);
	return a;
}

__attribute__((noinline)) double Square::area() const
{
	double a = 0;
	for (int i = 0; i < 1000; i++)
		a += s * s / (i + 1);
	return a;
}

template <typename T> __attribute__((noinline)) T total(const std::vector<Shape *> &v)
{
	T t = 0;
	for (int k = 0; k < 1000; k++)
		for (const Shape *s : v)
			t += static_cast<T>(s->area()) / (k + 1);
	return t;
}

template <typename T> struct Grid {
	std::vector<T> cells;
	explicit Grid(std::size_t n) : cells(n, 1) {}
	__attribute__((noinline)) T sum() const
	{
		T t = 0;
		for (std::size_t k = 0; k < 300; k++)
			for (T c : cells)
				t += c ^ static_cast<T>(k);
		return t;
	}
};

} // namespace geo

namespace {

__attribute__((noinline)) long spin(long n)
{
	volatile long x = 0;
	for (long i = 0; i < n; i++)
		x = x + i;
	return x;
}

struct Scale {
	double f;
	__attribute__((noinline)) double operator()(double x) const
	{
		double y = x;
		for (int i = 0; i < 3000; i++)
			y = y * f + 1.0 / (i + 1);
		return y;
	}
};

} // namespace

volatile double sink;

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? std::atoi(argv[1]) : 2000;
	std::vector<geo::Shape *> v;
	geo::Grid<int> grid(1000);
	Scale scale = {0.5};

	v.push_back(new geo::Circle(1.5));
	v.push_back(new geo::Square(2.0));
	for (int i = 0; i < rounds; i++) {
		sink += v[static_cast<std::size_t>(i) % 2]->area();
		if (i % 20 == 0)
			sink += geo::total<double>(v) / 1000;
		sink += grid.sum();
		sink += static_cast<double>(spin(3000));
		sink += scale(sink);
	}
	for (geo::Shape *s : v)
		delete s;
	return 0;
}
