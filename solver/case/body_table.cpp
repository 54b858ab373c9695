// A case's floating objects as the backends integrate them (body_table.h).

#include "case/body_table.h"

#include "case/constants.h"
#include "case/mass_properties.h"
#include "physics/contact.h"

#include <Eigen/Geometry>
#include <Eigen/LU>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <unordered_set>

namespace sluice {

namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

void put(const Vector3d& v, double* out) {
    out[0] = v.x(), out[1] = v.y(), out[2] = v.z();
}

void put(const Matrix3d& m, double* out) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out[3 * i + j] = m(i, j);
}

/// The rotation a body keeps (rigid_body.h, BodyRotation) and its axis, from its freedoms.
void set_rotation(const Floating& f, int dimension, RigidBodyData& b) {
    // A 2D body never moves along y nor turns about x or z (floating_model.h).
    const unsigned fixed = f.fixed | (dimension == 2 ? fixed_y | fixed_rx | fixed_rz : 0u);
    if (f.hinge) {
        b.rotation = BodyRotation::hinge;
        put(f.hinge->axis, b.axis);
        put(f.hinge->point, b.pivot);
        b.free_translation = 0;
        return;
    }
    b.free_translation = 0;
    for (int a = 0; a < 3; ++a)
        if (!(fixed & (fixed_x << a)))
            b.free_translation |= static_cast<std::uint8_t>(1u << a);
    int free = 0, last = 0;
    for (int a = 0; a < 3; ++a)
        if (!(fixed & (fixed_rx << a)))
            ++free, last = a;
    if (free == 0) {
        b.rotation = BodyRotation::none;
    } else if (free == 3 && dimension == 3) {
        b.rotation = BodyRotation::free;
    } else { // one (the reader refuses two)
        b.rotation = BodyRotation::axis;
        Vector3d axis = Vector3d::Zero();
        axis[last] = 1.0;
        put(axis, b.axis);
    }
}

/// Marks buried[i] for the particles ids [first, first + count) of one body (BodyTables::buried):
/// its particles as lattice cells (relative to its first particle, spacing dp), then for each
/// whether every cell of the ball of `reach` (m) around it holds one.
void mark_buried(const std::vector<Vector3d>& reference, std::uint32_t first, std::uint32_t count,
                 double dp, double reach, int dimension, std::vector<std::uint8_t>& buried) {
    using Cell = std::array<std::int64_t, 3>;
    const auto key = [](const Cell& k) {
        return static_cast<std::uint64_t>(k[0] & 0x1fffff) |
               static_cast<std::uint64_t>(k[1] & 0x1fffff) << 21 |
               static_cast<std::uint64_t>(k[2] & 0x1fffff) << 42;
    };
    const Vector3d origin = reference.at(first);
    std::vector<Cell> cells(count);
    std::unordered_set<std::uint64_t> occupied;
    for (std::uint32_t k = 0; k < count; ++k) {
        const Vector3d r = (reference.at(first + k) - origin) / dp;
        const Vector3d rounded = r.array().round().matrix();
        if ((r - rounded).cwiseAbs().maxCoeff() > 1e-3)
            return; // off the lattice: none buried
        for (int a = 0; a < 3; ++a)
            cells[k][static_cast<std::size_t>(a)] = static_cast<std::int64_t>(rounded[a]);
        occupied.insert(key(cells[k]));
    }
    const auto n = static_cast<std::int64_t>(std::floor(reach / dp));
    std::vector<Cell> ball;
    for (std::int64_t x = -n; x <= n; ++x)
        for (std::int64_t y = (dimension == 3 ? -n : 0); y <= (dimension == 3 ? n : 0); ++y)
            for (std::int64_t z = -n; z <= n; ++z)
                if (static_cast<double>(x * x + y * y + z * z) * dp * dp <= reach * reach)
                    ball.push_back({x, y, z});
    for (std::uint32_t k = 0; k < count; ++k) {
        bool full = true;
        for (const Cell& o : ball) {
            const Cell c{cells[k][0] + o[0], cells[k][1] + o[1], cells[k][2] + o[2]};
            if (occupied.count(key(c)) == 0) {
                full = false;
                break;
            }
        }
        buried[first + k] = full ? 1 : 0;
    }
}

} // namespace

BodyMass body_mass(const Case& c, const Obstacle& o) {
    const Floating& f = *o.object.floating;
    const ShapeMassProperties shape =
        shape_mass_properties(o.shape, o.box.min, o.box.max, c.dimension);
    BodyMass m;
    m.volume = shape.volume;
    m.mass_given = f.mass.has_value();
    m.mass = f.mass ? *f.mass : *f.density * shape.volume;
    m.center_given = f.center.has_value();
    m.center = f.center ? *f.center : shape.centroid;
    m.inertia_given = f.inertia.has_value();
    if (f.inertia) {
        m.inertia = *f.inertia;
    } else {
        // The shape's tensor about its centroid, moved to the given centre of mass by the
        // parallel-axis theorem (Steiner): I_c = I_g + M (|d|² 1 − d dᵀ), d = g − c.
        const double density = m.mass / shape.volume;
        m.inertia = density * shape.inertia_per_density;
        const Vector3d d = shape.centroid - m.center;
        if (c.dimension == 3)
            m.inertia += m.mass * (d.squaredNorm() * Matrix3d::Identity() - d * d.transpose());
        else
            m.inertia(1, 1) += m.mass * (d.x() * d.x() + d.z() * d.z());
    }
    return m;
}

std::optional<double> floating_level(const Case& c, const Obstacle& o, const BodyMass& m) {
    return floating_level(o.shape, o.box.min, o.box.max, c.dimension, c.constants.rho0, m.mass);
}

BodyTables make_body_tables(const Case& c, const std::vector<Vector3d>& reference,
                            const std::vector<ObjectIds>& objects) {
    BodyTables t;
    std::map<std::string, std::uint32_t> index; // body name → body
    std::vector<const Floating*> floating;
    std::uint32_t object = c.tank ? 1u : 0u;
    for (const Obstacle& o : c.obstacles) {
        const std::uint32_t k = object++;
        if (!o.object.floating)
            continue;
        const Floating& f = *o.object.floating;
        const BodyMass m = body_mass(c, o);
        const ObjectIds ids = objects.at(k);
        if (ids.count == 0)
            throw std::invalid_argument("the floating obstacle '" + o.object.name + "' (line " +
                                        std::to_string(o.where.line) +
                                        ") has no particle at dp = " + std::to_string(c.dp) +
                                        " m; give it a larger shape or a smaller dp");
        RigidBodyData b;
        b.mass = m.mass;
        if (c.dimension == 2) {
            b.inertia[4] = m.inertia(1, 1);
            b.inverse_inertia[4] = 1.0 / m.inertia(1, 1);
        } else {
            put(m.inertia, b.inertia);
            put(Matrix3d(m.inertia.inverse()), b.inverse_inertia);
        }
        put(m.center, b.center0);
        b.gravity[2] = -c.constants.gravity;
        set_rotation(f, c.dimension, b);
        const Vector3d axis(b.axis[0], b.axis[1], b.axis[2]);
        b.axis_inertia = axis.dot(m.inertia * axis);
        if (b.rotation == BodyRotation::hinge) { // about the pivot (parallel-axis theorem)
            const Vector3d arm = m.center - f.hinge->point;
            b.axis_inertia += m.mass * axis.cross(arm).squaredNorm();
        }
        b.start = f.start;
        b.object = k;
        b.first_id = ids.first;
        b.id_count = ids.count;
        double radius = 0.0;
        for (std::uint32_t i = ids.first; i < ids.first + ids.count; ++i)
            radius = std::max(radius, (reference.at(i) - m.center).norm());
        b.radius = radius;
        double v0[3], w0[3];
        put(f.velocity, v0);
        put(f.angular_velocity, w0);
        set_initial_velocity(b, v0, w0);
        index[o.object.name] = static_cast<std::uint32_t>(t.bodies.size());
        t.bodies.push_back(b);
        t.names.push_back(o.object.name);
        t.contact.push_back({ids.first, ids.count, static_cast<float>(m.mass / ids.count),
                             static_cast<float>(contact_damping_ratio(f.restitution))});
        floating.push_back(&f);
    }
    for (std::uint32_t body = 0; body < floating.size(); ++body)
        for (const FloatingSpring& s : floating[body]->springs) {
            SpringData k;
            k.body = body;
            put(s.point, k.point);
            Vector3d other = s.anchor ? *s.anchor : s.body_point;
            if (!s.anchor)
                k.other = index.at(s.body);
            put(other, k.other_point);
            k.stiffness = s.stiffness;
            k.damping = s.damping;
            k.rest_length = s.rest_length ? *s.rest_length : (s.point - other).norm();
            k.slack = s.slack;
            t.springs.push_back(k);
        }
    std::uint32_t end = 0;
    for (const RigidBodyData& b : t.bodies)
        end = std::max(end, b.first_id + b.id_count);
    t.buried.assign(end, 0);
    // The support 2h (the fluid's pair terms; the contacts reach dp < 2h), and a spacing more
    // for a particle pressed closer to the body than its lattice.
    const double reach = 2.0 * smoothing_length(c) + c.dp;
    for (const RigidBodyData& b : t.bodies)
        mark_buried(reference, b.first_id, b.id_count, c.dp, reach, c.dimension, t.buried);
    return t;
}

static_assert(sizeof(BodyState) == body_state_doubles * sizeof(double),
              "SimulationState::body_states holds BodyState's doubles");

std::vector<BodyState> starting_body_states(const BodyTables& t, const SimulationState& state) {
    std::vector<BodyState> out;
    if (state.body_states.empty()) {
        if (state.time > 0.0 && !t.empty())
            throw std::invalid_argument(
                "the saved state at t = " + std::to_string(state.time) +
                " s holds no floating bodies' states (a checkpoint of a case without floating "
                "objects, or of an older sluice): start the run again from t = 0");
        for (const RigidBodyData& b : t.bodies)
            out.push_back(initial_body_state(b));
        return out;
    }
    if (state.body_states.size() != t.bodies.size() * body_state_doubles)
        throw std::invalid_argument("the saved state holds " +
                                    std::to_string(state.body_states.size() / body_state_doubles) +
                                    " floating bodies' states and the case has " +
                                    std::to_string(t.bodies.size()) + " floating objects");
    out.resize(t.bodies.size());
    std::memcpy(static_cast<void*>(out.data()), state.body_states.data(),
                state.body_states.size() * sizeof(double));
    return out;
}

std::vector<FloatingSample> floating_samples(const std::vector<BodyState>& states,
                                             const std::vector<BodyLoads>& loads) {
    std::vector<FloatingSample> out(states.size());
    for (std::size_t b = 0; b < states.size(); ++b) {
        const BodyState& s = states[b];
        const BodyLoads& l = loads.at(b);
        FloatingSample& f = out[b];
        for (int a = 0; a < 4; ++a)
            f.orientation[a] = s.orientation[a];
        for (int a = 0; a < 3; ++a) {
            f.center[a] = s.center[a];
            f.velocity[a] = s.velocity[a];
            f.angular_velocity[a] = s.angular_velocity[a];
            f.fluid_force[a] = l.fluid_force[a];
            f.fluid_moment[a] = l.fluid_moment[a];
            f.spring_force[a] = l.spring_force[a];
            f.contact_force[a] = l.contact_force[a];
        }
    }
    return out;
}

std::vector<double> saved_body_states(const std::vector<BodyState>& states) {
    std::vector<double> out(states.size() * body_state_doubles);
    std::memcpy(out.data(), states.data(), out.size() * sizeof(double));
    return out;
}

} // namespace sluice
