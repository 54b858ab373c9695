#pragma once
/// \file dispatch.cuh
/// Runtime choices to compiled launches (DESIGN.md): the pass functors take (query, view) from
/// dispatch_neighbour_query and add the smoothing kernel from the plan's variant, so a launch
/// needs one named functor for all three choices (named structs: nvcc and generic lambdas in
/// templates do not mix well).

#include <variant>

namespace sluice::gpu {

/// Adds the kernel to a (query, view) dispatch: fn(QueryT{}, view, kernel) for the simulation's
/// smoothing kernel (one std::visit), so that a launch needs one functor for all three choices.
template <class FnT, class KernelsT>
struct WithKernel {
    template <class QueryT, class ViewT>
    struct Bound {
        const FnT* fn;
        const ViewT* view;
        template <class KernelT>
        void operator()(const KernelT& kernel) const {
            (*fn)(QueryT{}, *view, kernel);
        }
    };
    FnT fn;
    const KernelsT* kernels;
    template <class QueryT, class ViewT>
    void operator()(QueryT, const ViewT& view) const {
        std::visit(Bound<QueryT, ViewT>{&fn, &view}, *kernels);
    }
};

template <class FnT, class KernelsT>
WithKernel<FnT, KernelsT> with_kernel(FnT fn, const KernelsT& kernels) {
    return {fn, &kernels};
}

} // namespace sluice::gpu
