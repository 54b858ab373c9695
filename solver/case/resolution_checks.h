#pragma once
/// \file resolution_checks.h
/// What a particle spacing can resolve and what the neighbour grid can hold: the rules that make
/// a case sound at its dp (its own or `--dp`'s), checked by the reader once the geometry, the
/// constants and the domain are known, each error a CaseError at the line of the element at
/// fault. Without them a coarser dp or an absurd magnitude passed the reader and failed later
/// (an internal error at the grid) or silently (water through a one-particle paddle).

#include "case/case_model.h"

#include <string>

namespace sluice {

/// The wall layers the kernel needs so that fluid next to a wall sees wall particles over its
/// whole support: ⌈2h/dp − 1⌉ (cases/README.md, "Smoothing length": layer k lies (k + ½)·dp
/// behind the surface and a fluid particle ½dp in front of it reaches 2h). 2 in 2D and 3 in 3D
/// with coefh = 1; 4 in 2D with coefh = 1.5.
int required_wall_layers(const Case& c);

/// The tank's `layers`, and every obstacle's particle layers across it (a filled box's lattice
/// count on each axis, a cylinder's or sphere's diameter, a surface's bounding box, a shell's
/// `layers`), are at least required_wall_layers(c): a thinner wall lets the kernel see through it
/// and the water through it. `dp_text` says where dp came from, for the message.
/// \throws CaseError at the element's line.
void check_wall_thickness(const Case& c, const std::string& dp_text);

/// A wave maker's `depth` agrees within dp/4 with the depth of the water in front of its paddle
/// as the lattice holds it (rows·dp of the box fluid regions beside the paddle at t = 0): the
/// paddle's stroke is tuned for `depth`. Fluid given as a surface or a primitive is not checked.
/// \throws CaseError at the <wavemaker> line.
void check_wave_maker_depths(const Case& c, const std::string& dp_text);

/// The tank's inside is a whole number of spacings, within dp/4, along every axis whose max face
/// is chosen and meets another chosen face: its walls are laid on the inside's lattice from the
/// min face (cases/README.md, "Tank walls") and the corner fill starts at the max face, so a
/// misfit opens a gap of up to 1.5 dp where the walls meet (the shipped flume, 12.5 m = 781.25 dp,
/// lost 59–79 of 19,228 fluid particles through its floor's corner with the right wall over 25 s; 0
/// when aligned). The error suggests the nearest spacings that fit. \throws CaseError at the <tank>
/// line.
void check_tank_lattice(const Case& c, const std::string& dp_text);

/// What `--dp` changed, for the run's and check's output: "" when dp is the case file's, else
/// how many times coarser or finer, what that does to the particle count and to the layers that
/// resolve every wall and depth, and that the reader's rules hold at the new dp.
std::string dp_override_note(const Case& c);

/// c0 as the run will take it (constants.h derive_constants), with the fluid's height from the
/// fluid regions' boxes instead of the generated particles (within dp of it).
double estimated_speed_of_sound(const Case& c);

/// The speed of sound comes out positive and finite, and the derived constants the physics
/// takes in 32-bit floats (h, c0, B = c0²ρ0/γ, the mass, the initial dt) are finite and
/// positive there: a `gravity` of 0 without `speedOfSound`, or a ρ0 of 10³⁰⁸, failed after the
/// reader. Every fluid region's initial speed is below c0 (else at the <fluid> line). `where` is
/// the <constants> element (or the root).
/// \throws CaseError at `where`.
void check_derived_constants(const Case& c, const SourceLocation& where);

/// The run's end time within 10¹⁰ steps of the initial time step (fluid at rest: the step only
/// shrinks as the fluid moves): more is months of a small case on a GPU, and no end a user
/// means (the fuzzer's endTime of 3.1·10⁷ s, 2·10¹¹ steps). `where` is the <run> element (or
/// the root when the end time is the default or `--end-time`'s).
/// \throws CaseError at `where`.
void check_run_length(const Case& c, const SourceLocation& where);

/// c.domain as the neighbour grid will hold it (case/domain_grid.h at the case's search radius
/// and bin width, the same function and limit the run uses), and close enough to the origin that
/// 32-bit positions resolve a step's motion (a float's spacing at every corner at most dp/100).
/// `where` and `what` name the element that set the domain ("<domain>").
/// \throws CaseError at `where`.
void check_domain_grid(const Case& c, const SourceLocation& where, const std::string& what);

/// The same for the default domain (geometry_checks.h default_domain), blaming the element that
/// made it too large: the first fluid, tank or obstacle whose own box the grid cannot hold, else
/// the first moving object whose swept box is not finite or too large (at its <motion> line),
/// else `geometry_where`.
/// \throws CaseError.
void check_default_domain_grid(const Case& c, const SourceLocation& geometry_where);

} // namespace sluice
