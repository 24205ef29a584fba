/* SPDX-License-Identifier: GPL-2.0 */
/* ConnectX-3 model: multicast group entries for the data path (cx3_mcg.c). */
#ifndef CX3_MCG_H
#define CX3_MCG_H

#include "cx3.h"

#define CX3_MCG_QP_BLOCK_LB	(1u << 30)

const uint8_t *cx3_mcg_entry(struct cx3_dev *dev, uint32_t index);
uint32_t cx3_mcg_members(const uint8_t *entry);
uint32_t cx3_mcg_hash(struct cx3_dev *dev, const uint8_t gid[16]);

#endif /* CX3_MCG_H */
