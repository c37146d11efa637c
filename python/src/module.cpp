// python/src/module.cpp -- tessera._tessera, the compiled half of the Python package: the layout
// algebra (include/tessera/layout/), swizzles, tilers, thread-value layouts, their SVG pictures
// (include/tessera/draw/svg.hpp) and the memory analysers (include/tessera/analysis/).
//
// Host C++ only.  Every operation calls the same functions as the `tessera` command, so results
// and error messages are the library's own: a LayoutError or AnalysisError (both
// std::invalid_argument) reaches Python as ValueError with the C++ message unchanged.  Python
// values that cannot be converted at all (a float where an integer belongs) raise TypeError.
//
// Python forms of the algebra's values:
//   int tuple   an int or a (nested) tuple/list of ints, e.g. (4, (2, 3)); returned as tuples
//   Layout      Layout("((2,2),3):((1,2),4)"), Layout(shape, stride=None) (None: column-major)
//   Tiler       Tiler("<2,3>"), Tiler(2, Layout("3:2")); a tuple of ints/layouts where a tiler goes
//   Swizzle     Swizzle(3, 3, 3), Swizzle("Sw<3,3,3>")
// Wherever a Layout is expected, its text is accepted too.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>  // std::string <-> str
#include <nanobind/stl/vector.h>  // std::vector <-> list

#include <optional>  // std::optional
#include <string>    // std::string
#include <variant>   // std::variant, std::visit
#include <vector>    // std::vector

#include "tessera/analysis/gmem.hpp"     // analyze_gmem
#include "tessera/analysis/smem.hpp"     // analyze_smem
#include "tessera/draw/svg.hpp"          // layout_grid, tv_grid, swizzle_grid, render
#include "tessera/layout.hpp"            // the algebra and its text form
#include "tessera/tensor/tv_layout.hpp"  // make_tv_copy

namespace nb = nanobind;
using namespace nb::literals;

namespace tessera::python {

namespace {

// ------------------------------------------------------------------ int tuples
nb::object to_py(const IntTuple& t) {
  if (t.is_leaf()) return nb::int_(t.value());
  nb::list items;
  for (int i = 0; i < t.rank(); ++i) items.append(to_py(t.get(i)));
  return nb::tuple(items);
}

// The Python type name of a value, for TypeError messages.
std::string py_type_name(nb::handle h) { return nb::type_name(h.type()).c_str(); }

// An integer argument; `what` names it in errors.
Int to_int(nb::handle h, const std::string& what) {
  if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr()))
    throw nb::type_error((what + ": expected an integer, got " + py_type_name(h)).c_str());
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow != 0 || v > kMaxMagnitude || v < -kMaxMagnitude)
    throw std::invalid_argument(what + ": integer " + nb::str(h).c_str() + " is outside [-2^" +
                                std::to_string(kMaxMagnitudeLog2) + ", 2^" + std::to_string(kMaxMagnitudeLog2) + "]");
  return static_cast<Int>(v);
}

// An int tuple from an int, a (nested) tuple or list of ints, or its text "(4,(2,3))".
IntTuple to_int_tuple(nb::handle h, const std::string& what) {
  if (nb::isinstance<nb::str>(h)) return parse_int_tuple(nb::cast<std::string>(h));
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
    IntTuple t = IntTuple::empty_tuple();
    Py_ssize_t i = 0;
    for (nb::handle e : h) {
      t.push_back(to_int_tuple(e, what + "[" + std::to_string(i) + "]"));
      ++i;
    }
    return t;
  }
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) return IntTuple::leaf(to_int(h, what));
  throw nb::type_error((what + ": expected an integer, a tuple of integers or its text, got " + py_type_name(h)).c_str());
}

// ------------------------------------------------------------------ layouts, tilers, swizzles
Layout to_layout(nb::handle h, const std::string& what) {
  if (nb::isinstance<Layout>(h)) return nb::cast<Layout>(h);
  if (nb::isinstance<nb::str>(h)) return parse_layout(nb::cast<std::string>(h));
  throw nb::type_error((what + ": expected a Layout or its text, got " + py_type_name(h)).c_str());
}

Tiler tiler_of_modes(nb::handle seq, const std::string& what) {
  Tiler t;
  Py_ssize_t i = 0;
  for (nb::handle e : seq) {
    const std::string w = what + "[" + std::to_string(i++) + "]";
    if (PyLong_Check(e.ptr()) && !PyBool_Check(e.ptr()))
      t.push(to_int(e, w));
    else
      t.push(to_layout(e, w));
  }
  return t;
}

// The right-hand side of composition, divides and products: a Layout, a Tiler, a tuple of modes
// (a tiler), or the text of either ("(4,3):(3,1)", "<2,3>").
std::variant<Layout, Tiler> to_layout_or_tiler(nb::handle h, const std::string& what) {
  if (nb::isinstance<Layout>(h)) return nb::cast<Layout>(h);
  if (nb::isinstance<Tiler>(h)) return nb::cast<Tiler>(h);
  if (nb::isinstance<nb::str>(h)) return parse_layout_or_tiler(nb::cast<std::string>(h));
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) return tiler_of_modes(h, what);
  throw nb::type_error(
      (what + ": expected a Layout, a Tiler, a tuple of modes or the text of one, got " + py_type_name(h)).c_str());
}

Swizzle parse_swizzle(const std::string& text) {
  // "Sw<B,M,S>" alone: read it as the swizzle of a one-element layout.
  if (!text.empty() && text.find('o') != std::string::npos)
    throw LayoutError("Swizzle: expected 'Sw<B,M,S>', got '" + text + "' (a swizzled layout is a SwizzledLayout)");
  return parse_swizzled(text + "o1:0").swizzle;
}

// Evaluation: L(i), L(i, j, ...), L((i, j)), L[(i, j)].
IntTuple coordinate_of(nb::args args) {
  if (args.size() == 0) throw nb::type_error("layout evaluation: expected a coordinate, got no arguments");
  if (args.size() == 1) return to_int_tuple(args[0], "coordinate");
  return to_int_tuple(args, "coordinate");
}

template <class F>
nb::object binary(nb::handle a, nb::handle b, F f) {
  Layout l = to_layout(a, "layout");
  return std::visit([&](const auto& t) { return nb::cast(f(l, t)); }, to_layout_or_tiler(b, "tiler"));
}

// ------------------------------------------------------------------ pictures
std::string svg_of(const Layout& l) { return draw::render(draw::layout_grid(l)); }
std::string svg_of(const SwizzledLayout& s) { return draw::render(draw::layout_grid(s.layout, s.swizzle)); }

// A thread-value layout over a 2-D tile: (thread, value) -> m + M*n.
struct TVLayout {
  Layout tv;
  Int tile_m = 0;
  Int tile_n = 0;
  std::string title;
};

TVLayout make_tv_layout(nb::handle tv, nb::handle tile, const std::string& title) {
  IntTuple s = to_int_tuple(tile, "tile");
  if (!s.is_tuple() || s.rank() != 2)
    throw std::invalid_argument("tile: expected a 2-D shape (M,N), got " + to_string(s));
  TVLayout r{to_layout(tv, "tv"), product(s.get(0)), product(s.get(1)), title};
  if (rank(r.tv) != 2)
    throw std::invalid_argument("tv: a TV layout has rank 2 (thread, value), got " + to_string(r.tv));
  if (r.title.empty())
    r.title = "TV layout over a (" + std::to_string(r.tile_m) + "," + std::to_string(r.tile_n) + ") tile";
  return r;
}

// ------------------------------------------------------------------ analysis
nb::dict make_dict(std::initializer_list<std::pair<const char*, nb::object>> items) {
  nb::dict d;
  for (const auto& [k, v] : items) d[k] = v;
  return d;
}

analysis::AccessPattern access_pattern(nb::handle memory, int elem_bytes, nb::handle tv, nb::handle tile,
                                       nb::handle copy) {
  analysis::AccessPattern p;
  if (nb::isinstance<SwizzledLayout>(memory)) {
    SwizzledLayout s = nb::cast<SwizzledLayout>(memory);
    p.memory = analysis::MemoryLayout{s.layout, s.swizzle};
  } else if (nb::isinstance<Layout>(memory)) {
    p.memory = analysis::MemoryLayout{nb::cast<Layout>(memory), std::nullopt};
  } else if (nb::isinstance<nb::str>(memory)) {
    p.memory = analysis::parse_memory_layout(nb::cast<std::string>(memory));
  } else {
    throw nb::type_error(("layout: expected a Layout, a SwizzledLayout or the text of one, got " + py_type_name(memory)).c_str());
  }
  p.elem_bytes = elem_bytes;
  if (tv.is_none() == copy.is_none())
    throw std::invalid_argument("access pattern: give exactly one of tv= and copy=");
  if (!tv.is_none()) {
    p.tv = to_layout(tv, "tv");
    if (!tile.is_none()) {
      std::variant<Layout, Tiler> t = to_layout_or_tiler(tile, "tile");
      if (std::holds_alternative<Tiler>(t)) {
        p.tile = std::get<Tiler>(t);
      } else {
        // a shape (M,N) given as text or tuple: one integer per mode
        const Layout& l = std::get<Layout>(t);
        Tiler r;
        for (int i = 0; i < rank(l); ++i) r.push(product(rank(l) == 1 ? l.shape : l.shape.get(i)));
        p.tile = r;
      }
    }
  } else {
    if (!tile.is_none()) throw std::invalid_argument("tile: not with copy= (the tiled copy has its own tile)");
    if (!(PyTuple_Check(copy.ptr()) || PyList_Check(copy.ptr())) || nb::len(copy) != 2)
      throw nb::type_error("copy: expected a pair (thr, val) of layouts");
    TVCopy c = make_tv_copy(copy_atom_vector(1), to_layout(copy[0], "copy[0]"), to_layout(copy[1], "copy[1]"));
    p.tv = c.tv;
    p.tile = c.tiler;
  }
  return p;
}

nb::dict smem_report(nb::handle memory, int elem_bytes, const std::string& inst, nb::handle tv, nb::handle tile,
                     nb::handle copy, Int base) {
  analysis::AccessPattern p = access_pattern(memory, elem_bytes, tv, tile, copy);
  p.base_bytes = base;
  const analysis::SmemReport r = analysis::analyze_smem(p, analysis::find_instruction(inst));
  nb::list per;
  for (const auto& i : r.per_instruction)
    per.append(make_dict({{"warp", nb::cast(i.warp)}, {"group", nb::cast(i.group)}, {"wavefronts", nb::cast(i.wavefronts)}, {"ideal", nb::cast(i.ideal)}, {"conflicts", nb::cast(i.conflicts)}, {"ways", nb::cast(i.ways)}, {"phase_wavefronts", nb::cast(i.phase_wavefronts)}}));
  return make_dict({{"instruction", nb::cast(r.instruction)}, {"is_store", nb::cast(r.is_store)}, {"instructions", nb::cast(r.instructions)}, {"wavefronts", nb::cast(r.wavefronts)}, {"ideal", nb::cast(r.ideal)}, {"conflicts", nb::cast(r.conflicts)}, {"max_ways", nb::cast(r.max_ways)}, {"per_instruction", nb::cast(per)}, {"bank_words", nb::cast(r.bank_words)}});
}

nb::dict gmem_report(nb::handle memory, int elem_bytes, const std::string& inst, nb::handle tv, nb::handle tile,
                     nb::handle copy, Int base) {
  analysis::AccessPattern p = access_pattern(memory, elem_bytes, tv, tile, copy);
  p.base_bytes = base;
  const analysis::GmemReport r = analysis::analyze_gmem(p, analysis::find_instruction(inst));
  nb::list per;
  for (const auto& i : r.per_instruction)
    per.append(make_dict({{"warp", nb::cast(i.warp)}, {"group", nb::cast(i.group)}, {"sectors", nb::cast(i.sectors)}, {"lines", nb::cast(i.lines)}, {"bytes", nb::cast(i.bytes)}, {"efficiency", nb::cast(i.efficiency)}}));
  return make_dict({{"instruction", nb::cast(r.instruction)}, {"instructions", nb::cast(r.instructions)}, {"sectors", nb::cast(r.sectors)}, {"lines", nb::cast(r.lines)}, {"bytes", nb::cast(r.bytes)}, {"efficiency", nb::cast(r.efficiency)}, {"sectors_per_request", nb::cast(r.sectors_per_request)}, {"per_instruction", nb::cast(per)}});
}

}  // namespace

}  // namespace tessera::python

NB_MODULE(_tessera, m) {
  using namespace tessera;
  using namespace tessera::python;
  m.doc() = "Tessera's layout algebra, pictures and memory analysers (host C++, no GPU needed)";
  m.attr("__version__") = TESSERA_VERSION;

  // ---------------------------------------------------------------- classes
  nb::class_<Layout>(m, "Layout", "A Shape:Stride layout: a function from coordinates to indices")
      .def("__init__", [](Layout* self, const std::string& text) { new (self) Layout(parse_layout(text)); }, "text"_a,
           "Layout from its text, e.g. Layout(\"((2,2),(2,3)):((4,1),(2,8))\")")
      .def(
          "__init__",
          [](Layout* self, nb::handle shape, nb::handle stride) {
            IntTuple s = to_int_tuple(shape, "shape");
            new (self) Layout(stride.is_none() ? make_layout(s) : make_layout(s, to_int_tuple(stride, "stride")));
          },
          "shape"_a, "stride"_a = nb::none(),
          "Layout from a shape and a stride (int tuples); without a stride, the compact column-major layout")
      .def_prop_ro("shape", [](const Layout& l) { return to_py(l.shape); })
      .def_prop_ro("stride", [](const Layout& l) { return to_py(l.stride); })
      .def("__call__", [](const Layout& l, nb::args a) { return l(coordinate_of(a)); },
           "L(i), L(i, j, ...), L((i, j)): the index of a coordinate")
      .def("__getitem__", [](const Layout& l, nb::handle c) { return l(to_int_tuple(c, "coordinate")); })
      .def("__len__", [](const Layout& l) { return static_cast<size_t>(size(l)); })
      .def("__str__", [](const Layout& l) { return to_string(l); })
      .def("__repr__", [](const Layout& l) { return to_string(l); })
      .def("__eq__", [](const Layout& a, nb::handle b) { return nb::isinstance<Layout>(b) && a == nb::cast<Layout>(b); })
      .def("__hash__", [](const Layout& l) { return nb::hash(nb::str(to_string(l).c_str())); })
      .def("_repr_svg_", [](const Layout& l) { return svg_of(l); }, "the SVG picture of `tessera layout draw`");

  nb::class_<Tiler>(m, "Tiler", "A by-mode tiler <T0,T1,...>: each mode an integer or a layout")
      .def("__init__", [](Tiler* self, const std::string& text) { new (self) Tiler(parse_tiler(text)); }, "text"_a)
      .def("__init__", [](Tiler* self, nb::args modes) { new (self) Tiler(tiler_of_modes(modes, "mode")); })
      .def("__len__", [](const Tiler& t) { return t.n; })
      .def("__getitem__",
           [](const Tiler& t, int i) -> nb::object {
             if (i < 0) i += t.n;
             if (i < 0 || i >= t.n) throw nb::index_error(("Tiler: mode " + std::to_string(i) + " of " + std::to_string(t.n)).c_str());
             return t.is_int[i] ? nb::object(nb::int_(size(t.elem[i]))) : nb::cast(t.elem[i]);
           })
      .def("__str__", [](const Tiler& t) { return to_string(t); })
      .def("__repr__", [](const Tiler& t) { return to_string(t); })
      .def("__eq__", [](const Tiler& a, nb::handle b) { return nb::isinstance<Tiler>(b) && a == nb::cast<Tiler>(b); })
      .def("__hash__", [](const Tiler& t) { return nb::hash(nb::str(to_string(t).c_str())); });

  nb::class_<Swizzle>(m, "Swizzle", "Sw<B,M,S>: x -> x ^ ((x & yyy_mask) >> S), a function on offsets")
      .def("__init__",
           [](Swizzle* self, int b, int mm, int s) {
             Swizzle sw{b, mm, s};
             sw.validate();
             new (self) Swizzle(sw);
           },
           "b"_a, "m"_a, "s"_a)
      .def("__init__", [](Swizzle* self, const std::string& text) { new (self) Swizzle(parse_swizzle(text)); }, "text"_a)
      .def_prop_ro("b", [](const Swizzle& s) { return s.b; })
      .def_prop_ro("m", [](const Swizzle& s) { return s.m; })
      .def_prop_ro("s", [](const Swizzle& s) { return s.s; })
      .def("__call__", [](const Swizzle& s, nb::handle x) { return s(to_int(x, "offset")); })
      .def("__str__", [](const Swizzle& s) { return to_string(s); })
      .def("__repr__", [](const Swizzle& s) { return to_string(s); })
      .def("__eq__", [](const Swizzle& a, nb::handle b) { return nb::isinstance<Swizzle>(b) && a == nb::cast<Swizzle>(b); })
      .def("__hash__", [](const Swizzle& s) { return nb::hash(nb::str(to_string(s).c_str())); });

  nb::class_<SwizzledLayout>(m, "SwizzledLayout", "Sw o L: the layout, then the swizzle of its index")
      .def("__init__", [](SwizzledLayout* self, const std::string& text) { new (self) SwizzledLayout(parse_swizzled(text)); },
           "text"_a)
      .def("__init__",
           [](SwizzledLayout* self, const Swizzle& sw, nb::handle l) {
             new (self) SwizzledLayout(composition(sw, to_layout(l, "layout")));
           },
           "swizzle"_a, "layout"_a)
      .def_prop_ro("swizzle", [](const SwizzledLayout& s) { return s.swizzle; })
      .def_prop_ro("layout", [](const SwizzledLayout& s) { return s.layout; })
      .def_prop_ro("shape", [](const SwizzledLayout& s) { return to_py(s.layout.shape); })
      .def("__call__", [](const SwizzledLayout& s, nb::args a) { return s(coordinate_of(a)); })
      .def("__getitem__", [](const SwizzledLayout& s, nb::handle c) { return s(to_int_tuple(c, "coordinate")); })
      .def("__len__", [](const SwizzledLayout& s) { return static_cast<size_t>(size(s)); })
      .def("__str__", [](const SwizzledLayout& s) { return to_string(s); })
      .def("__repr__", [](const SwizzledLayout& s) { return to_string(s); })
      .def("__eq__",
           [](const SwizzledLayout& a, nb::handle b) {
             return nb::isinstance<SwizzledLayout>(b) && a == nb::cast<SwizzledLayout>(b);
           })
      .def("__hash__", [](const SwizzledLayout& s) { return nb::hash(nb::str(to_string(s).c_str())); })
      .def("_repr_svg_", [](const SwizzledLayout& s) { return svg_of(s); }, "the SVG picture of `tessera layout draw`")
      .def(
          "banks_svg",
          [](const SwizzledLayout& s, int elem_bytes) {
            return draw::render(draw::swizzle_grid(s.swizzle, s.layout, elem_bytes));
          },
          "elem_bytes"_a, "the shared-memory banks of each element (`tessera swizzle draw`), as SVG");

  nb::class_<TVLayout>(m, "TVLayout", "A thread-value layout (thread, value) -> m + M*n over an (M,N) tile")
      .def("__init__",
           [](TVLayout* self, nb::handle tv, nb::handle tile, const std::string& title) {
             new (self) TVLayout(make_tv_layout(tv, tile, title));
           },
           "tv"_a, "tile"_a, "title"_a = "")
      .def_prop_ro("tv", [](const TVLayout& t) { return t.tv; })
      .def_prop_ro("tile", [](const TVLayout& t) { return nb::make_tuple(t.tile_m, t.tile_n); })
      .def_prop_ro("title", [](const TVLayout& t) { return t.title; })
      .def("__str__", [](const TVLayout& t) { return to_string(t.tv); })
      .def("__repr__", [](const TVLayout& t) {
        return "TVLayout(" + to_string(t.tv) + ", tile=(" + std::to_string(t.tile_m) + "," + std::to_string(t.tile_n) + "))";
      })
      .def("_repr_svg_", [](const TVLayout& t) { return draw::render(draw::tv_grid(t.tv, t.tile_m, t.tile_n, t.title)); },
           "the SVG picture of `tessera tv draw`");

  // ---------------------------------------------------------------- the algebra
  m.def("size", [](nb::handle l) -> Int {
    if (nb::isinstance<SwizzledLayout>(l)) return size(nb::cast<SwizzledLayout>(l));
    return size(to_layout(l, "layout"));
  });
  m.def("cosize", [](nb::handle l) { return cosize(to_layout(l, "layout")); });
  m.def("rank", [](nb::handle l) { return rank(to_layout(l, "layout")); });
  m.def("depth", [](nb::handle l) { return depth(to_layout(l, "layout")); });
  m.def(
      "coalesce",
      [](nb::handle l, nb::handle profile) {
        Layout x = to_layout(l, "layout");
        return profile.is_none() ? coalesce(x) : coalesce(x, to_int_tuple(profile, "profile"));
      },
      "layout"_a, "profile"_a = nb::none());
  m.def("filter", [](nb::handle l) { return filter(to_layout(l, "layout")); });
  m.def(
      "composition",
      [](nb::handle a, nb::handle b) -> nb::object {
        if (nb::isinstance<Swizzle>(a)) return nb::cast(composition(nb::cast<Swizzle>(a), to_layout(b, "layout")));
        return binary(a, b, [](const Layout& l, const auto& t) { return composition(l, t); });
      },
      "a"_a, "b"_a, "A o B: c -> A(B(c)); B a Layout or a Tiler; Swizzle o Layout gives a SwizzledLayout");
  m.def(
      "complement",
      [](nb::handle l, nb::handle cotarget) {
        Layout x = to_layout(l, "layout");
        return cotarget.is_none() ? complement(x) : complement(x, to_int_tuple(cotarget, "cotarget"));
      },
      "layout"_a, "cotarget"_a = nb::none());
  m.def("right_inverse", [](nb::handle l) { return right_inverse(to_layout(l, "layout")); });
  m.def("left_inverse", [](nb::handle l) { return left_inverse(to_layout(l, "layout")); });
#define TESSERA_PY_TILER_OP(NAME)                                                                      \
  m.def(                                                                                               \
      #NAME,                                                                                           \
      [](nb::handle l, nb::handle t) {                                                                 \
        return binary(l, t, [](const Layout& x, const auto& y) { return NAME(x, y); });                \
      },                                                                                               \
      "layout"_a, "tiler"_a);
  TESSERA_PY_TILER_OP(logical_divide)
  TESSERA_PY_TILER_OP(zipped_divide)
  TESSERA_PY_TILER_OP(tiled_divide)
  TESSERA_PY_TILER_OP(flat_divide)
  TESSERA_PY_TILER_OP(logical_product)
  TESSERA_PY_TILER_OP(zipped_product)
  TESSERA_PY_TILER_OP(tiled_product)
  TESSERA_PY_TILER_OP(flat_product)
#undef TESSERA_PY_TILER_OP
  m.def("blocked_product", [](nb::handle a, nb::handle b) {
    return blocked_product(to_layout(a, "a"), to_layout(b, "b"));
  }, "a"_a, "b"_a);
  m.def("raked_product", [](nb::handle a, nb::handle b) {
    return raked_product(to_layout(a, "a"), to_layout(b, "b"));
  }, "a"_a, "b"_a);
  m.def("max_common_vector", [](nb::handle a, nb::handle b) {
    return max_common_vector(to_layout(a, "a"), to_layout(b, "b"));
  }, "a"_a, "b"_a);
  m.def("max_common_layout", [](nb::handle a, nb::handle b) {
    return max_common_layout(to_layout(a, "a"), to_layout(b, "b"));
  }, "a"_a, "b"_a);
  m.def(
      "idx2crd", [](nb::handle l, nb::handle i) { return to_py(idx2crd(to_int(i, "index"), to_layout(l, "layout").shape)); },
      "layout"_a, "index"_a, "the natural coordinate of 1-D index i in the layout's shape");
  m.def(
      "crd2idx", [](nb::handle l, nb::handle c) { return to_layout(l, "layout")(to_int_tuple(c, "coordinate")); },
      "layout"_a, "coordinate"_a, "the index of a coordinate: L(c)");

  // ---------------------------------------------------------------- TV layouts
  m.def(
      "tv_copy",
      [](nb::handle thr, nb::handle val, Int atom_values) {
        Layout t = to_layout(thr, "thr"), v = to_layout(val, "val");
        TVCopy c = make_tv_copy(copy_atom_vector(atom_values), t, v);
        if (c.tiler.n != 2)
          throw std::invalid_argument("thr, val: layouts of rank 2 give a 2-D tile; got a tile of rank " +
                                      std::to_string(c.tiler.n));
        const Int tm = size(c.tiler.elem[0]), tn = size(c.tiler.elem[1]);
        const std::string title = "tiled copy: thr " + to_string(t) + " x val " + to_string(v) + " -> tile (" +
                                  std::to_string(tm) + "," + std::to_string(tn) + "), " + std::to_string(size(t)) +
                                  " threads";
        return TVLayout{c.tv, tm, tn, title};
      },
      "thr"_a, "val"_a, "atom_values"_a = 1,
      "make_tiled_copy(atom, thr, val)'s thread-value layout over its tile (`tessera tv draw --copy`)");

  // ---------------------------------------------------------------- analysis
  m.def("_smem", &smem_report, "layout"_a, "elem_bytes"_a, "inst"_a, "tv"_a = nb::none(), "tile"_a = nb::none(),
        "copy"_a = nb::none(), "base"_a = 0);
  m.def("_gmem", &gmem_report, "layout"_a, "elem_bytes"_a, "inst"_a, "tv"_a = nb::none(), "tile"_a = nb::none(),
        "copy"_a = nb::none(), "base"_a = 0);
  m.def("_instructions", [] {
    std::vector<std::string> names;
    for (const auto& i : analysis::instructions()) names.push_back(i.name);
    return names;
  });
}
