// SPDX-License-Identifier: Apache-2.0

// The C library's functions the renderer uses (an envelope's exponential decay, a transient's
// sine bump, the envelope times' exponential map). On Linux they come from Foundation; Embedded
// Swift has no C library module, so a firmware image declares them here and links newlib's libm.
#if hasFeature(Embedded)
    @_extern(c, "sin") func sin(_ x: Double) -> Double
    @_extern(c, "exp") func exp(_ x: Double) -> Double
    @_extern(c, "pow") func pow(_ x: Double, _ y: Double) -> Double
#endif
