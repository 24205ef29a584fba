/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPT entry fields as mlx4_core lays them out, for the unit tests that
 * build entries themselves (test_mr, test_mwfr): written from the driver's
 * side, apart from the model's own definitions.
 */
#ifndef CX3_UNIT_MPT_H
#define CX3_UNIT_MPT_H

#define ST_SW		0xfu		/* status nibble: software owns */
#define ST_FREE		0x3u		/* fast-register MR, not registered */
#define F_MIO		(1u << 17)
#define F_REGION	(1u << 8)
#define P_LR		(1u << 10)
#define P_LW		(1u << 11)
#define P_RR		(1u << 12)
#define P_RW		(1u << 13)
#define P_ATOMIC	(1u << 14)
#define P_BIND		(1u << 15)
#define P_MASK		0xfc00u
#define PD_EN_INV	(3u << 24)
#define PD_FAST_REG	(1u << 27)
#define PD_RAE		(1u << 28)

#endif /* CX3_UNIT_MPT_H */
