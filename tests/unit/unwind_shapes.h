/* SPDX-License-Identifier: MIT */
/* Functions of varied frame shapes for test_unwind_rules, compiled four times (-O0/-O2, with
 * and without frame pointers; tests/unit/CMakeLists.txt) under four name prefixes. A call chain
 * is a path of steps; each step's function does its shape's work and calls shapes_next, which
 * runs the next step or, at the end, the capture point. */
#ifndef UNWIND_SHAPES_H
#define UNWIND_SHAPES_H

enum { SHAPES = 8, SHAPE_REALIGN = 7 };

typedef struct step_s {
    int variant; /* which compilation: 0..3; -1 ends the path */
    int shape;   /* which function of it: 0..SHAPES-1 */
    int arg;     /* a size or a count the shape uses */
} step_t;

typedef int (*shape_fn)(const step_t *path, int i);

int shapes_next(const step_t *path, int i); /* the driver's */

extern const shape_fn shapes_o0_fp[SHAPES], shapes_o0_nofp[SHAPES], shapes_o2_fp[SHAPES],
    shapes_o2_nofp[SHAPES];
#endif
