// SPDX-License-Identifier: GPL-2.0
/*
 * Event queues: one asynchronous EQ (command completions, port changes,
 * object errors) and one completion EQ per MSI-X vector, or a single
 * completion EQ sharing the INTx line.  EQEs are 32 bytes; an entry belongs
 * to software when its owner bit equals the wrap parity of the consumer
 * index.  The doorbell (UAR page eqn / 4, +0x800 + 8 * (eqn % 4)) takes the
 * consumer index and, with bit 31, re-arms the EQ's interrupt.
 */
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "mlx4_core.h"

static bool msi_x = true;
module_param(msi_x, bool, 0444);
MODULE_PARM_DESC(msi_x, "use MSI-X interrupts (default 1; 0 forces INTx)");

#define MLX4_EQE_SIZE		32
#define MLX4_EQE_OWNER		0x80
#define MLX4_EQ_DOORBELL	0x800
#define MLX4_EQ_ARM		BIT(31)
#define MLX4_NUM_SPARE_EQE	0x80	/* consumer index update interval */
#define MLX4_ASYNC_EQ_NENT	512
#define MLX4_EQ_STATE_ARMED	(9 << 8)
#define MLX4_MAX_MSIX		32

/* EQ context (64 bytes) */
#define EQC_FLAGS		0x00
#define EQC_LOG_SIZE		0x0c
#define EQC_INTR		0x17
#define EQC_LOG_PAGE_SIZE	0x18
#define EQC_MTT_ADDR_H		0x1b
#define EQC_MTT_ADDR_L		0x1c

/* EQE fields */
#define EQE_TYPE		0x01
#define EQE_SUBTYPE		0x03
#define EQE_DATA		0x04
#define EQE_OWNER_BYTE		0x1f

enum {
	MLX4_EVENT_TYPE_EQ_OVERFLOW	= 0x0f,
	MLX4_EVENT_TYPE_ECC_DETECT	= 0x0e,
};

#define MLX4_PORT_CHANGE_SUBTYPE_DOWN	1
#define MLX4_PORT_CHANGE_SUBTYPE_ACTIVE	4

#define MLX4_ASYNC_EVENT_MASK \
	(BIT_ULL(MLX4_EVENT_TYPE_PATH_MIG) | BIT_ULL(MLX4_EVENT_TYPE_COMM_EST) | \
	 BIT_ULL(MLX4_EVENT_TYPE_SQ_DRAINED) | BIT_ULL(MLX4_EVENT_TYPE_CQ_ERROR) | \
	 BIT_ULL(MLX4_EVENT_TYPE_WQ_CATAS_ERROR) | \
	 BIT_ULL(MLX4_EVENT_TYPE_EEC_CATAS_ERROR) | \
	 BIT_ULL(MLX4_EVENT_TYPE_PATH_MIG_FAILED) | \
	 BIT_ULL(MLX4_EVENT_TYPE_WQ_INVAL_REQ_ERROR) | \
	 BIT_ULL(MLX4_EVENT_TYPE_WQ_ACCESS_ERROR) | \
	 BIT_ULL(MLX4_EVENT_TYPE_PORT_CHANGE) | BIT_ULL(MLX4_EVENT_TYPE_ECC_DETECT) | \
	 BIT_ULL(MLX4_EVENT_TYPE_SRQ_CATAS_ERROR) | \
	 BIT_ULL(MLX4_EVENT_TYPE_SRQ_QP_LAST_WQE) | \
	 BIT_ULL(MLX4_EVENT_TYPE_SRQ_LIMIT) | BIT_ULL(MLX4_EVENT_TYPE_CMD))

static void mlx4_eq_set_ci(struct mlx4_eq *eq, bool arm)
{
	iowrite32be((eq->cons_index & 0xffffff) | (arm ? MLX4_EQ_ARM : 0),
		    eq->doorbell);
}

static u8 *mlx4_next_eqe(struct mlx4_eq *eq)
{
	u32 off = (eq->cons_index & (eq->nent - 1)) * MLX4_EQE_SIZE;
	u8 *eqe = eq->pages[off / PAGE_SIZE].buf + off % PAGE_SIZE;
	bool hw_parity = !!(eqe[EQE_OWNER_BYTE] & MLX4_EQE_OWNER);

	return hw_parity == !!(eq->cons_index & eq->nent) ? eqe : NULL;
}

static u32 eqe_be32(const u8 *eqe, int off)
{
	return be32_to_cpup((const __be32 *)(eqe + off));
}

static void mlx4_eqe_dispatch(struct mlx4_priv *priv, struct mlx4_eq *eq, const u8 *eqe)
{
	struct device *d = &priv->dev.pdev->dev;
	u8 type = eqe[EQE_TYPE], subtype = eqe[EQE_SUBTYPE];
	u32 num = eqe_be32(eqe, EQE_DATA) & 0xffffff;
	int port;

	switch (type) {
	case MLX4_EVENT_TYPE_COMP:
		mlx4_cq_completion(priv, num);
		break;
	case MLX4_EVENT_TYPE_PATH_MIG:
	case MLX4_EVENT_TYPE_COMM_EST:
	case MLX4_EVENT_TYPE_SQ_DRAINED:
	case MLX4_EVENT_TYPE_WQ_CATAS_ERROR:
	case MLX4_EVENT_TYPE_PATH_MIG_FAILED:
	case MLX4_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
	case MLX4_EVENT_TYPE_WQ_ACCESS_ERROR:
	case MLX4_EVENT_TYPE_SRQ_QP_LAST_WQE:
		mlx4_qp_event(priv, num, type);
		break;
	case MLX4_EVENT_TYPE_SRQ_CATAS_ERROR:
	case MLX4_EVENT_TYPE_SRQ_LIMIT:
		mlx4_srq_event(priv, num, type);
		break;
	case MLX4_EVENT_TYPE_CQ_ERROR:
		dev_warn_ratelimited(d, "CQ 0x%x error, syndrome %u\n", num,
				     eqe[EQE_DATA + 11]);
		mlx4_cq_event(priv, num, type);
		break;
	case MLX4_EVENT_TYPE_PORT_CHANGE:
		port = eqe[EQE_DATA + 8] >> 4;
		if (port < 1 || port > priv->dev.caps.num_ports) {
			dev_warn_ratelimited(d, "port change for port %d\n", port);
			break;
		}
		if (subtype == MLX4_PORT_CHANGE_SUBTYPE_ACTIVE) {
			dev_info(d, "port %d active\n", port);
			mlx4_dispatch_event(priv, MLX4_DEV_EVENT_PORT_UP, port);
		} else {
			dev_info(d, "port %d down (subtype %u)\n", port, subtype);
			mlx4_dispatch_event(priv, MLX4_DEV_EVENT_PORT_DOWN, port);
		}
		break;
	case MLX4_EVENT_TYPE_CMD:
		mlx4_cmd_event(priv, be16_to_cpup((const __be16 *)(eqe + EQE_DATA + 2)),
			       eqe[EQE_DATA + 11],
			       (u64)eqe_be32(eqe, EQE_DATA + 12) << 32 |
			       eqe_be32(eqe, EQE_DATA + 16));
		break;
	case MLX4_EVENT_TYPE_EQ_OVERFLOW:
		dev_warn_ratelimited(d, "EQ %d overflow\n", eq->eqn);
		break;
	case MLX4_EVENT_TYPE_EEC_CATAS_ERROR:
	case MLX4_EVENT_TYPE_LOCAL_CATAS_ERROR:
	case MLX4_EVENT_TYPE_ECC_DETECT:
		dev_err_ratelimited(d, "EQ %d: error event 0x%x, data 0x%x\n",
				    eq->eqn, type, num);
		break;
	default:
		dev_warn_ratelimited(d, "EQ %d: unhandled event 0x%x subtype 0x%x\n",
				     eq->eqn, type, subtype);
		break;
	}
}

/* [hard IRQ] Drain one EQ and re-arm it; returns the number of EQEs. */
static int mlx4_eq_poll(struct mlx4_eq *eq)
{
	int found = 0, unacked = 0;
	u8 *eqe;

	while ((eqe = mlx4_next_eqe(eq))) {
		/* read the entry only after its owner bit */
		dma_rmb();
		mlx4_eqe_dispatch(eq->priv, eq, eqe);
		eq->cons_index++;
		found++;
		if (++unacked >= MLX4_NUM_SPARE_EQE) {
			mlx4_eq_set_ci(eq, false);
			unacked = 0;
		}
	}
	mlx4_eq_set_ci(eq, true);
	return found;
}

static irqreturn_t mlx4_msix_handler(int irq, void *eq_ptr)
{
	mlx4_eq_poll(eq_ptr);
	return IRQ_HANDLED;
}

static irqreturn_t mlx4_intx_handler(int irq, void *priv_ptr)
{
	struct mlx4_priv *priv = priv_ptr;
	struct mlx4_eq_table *t = &priv->eq_table;
	int i, work = 0;

	iowrite32be(t->clr_mask, t->clr_int);
	for (i = 0; i < t->num_eqs; i++)
		work |= mlx4_eq_poll(&t->eqs[i]);
	return IRQ_RETVAL(work);
}

/* ---------------------------------------------------------------------- */

static void __iomem *mlx4_eq_doorbell(struct mlx4_priv *priv, int eqn)
{
	struct mlx4_eq_table *t = &priv->eq_table;
	int page = eqn / 4;

	if (page >= ARRAY_SIZE(t->uar_map))
		return NULL;
	if (!t->uar_map[page]) {
		t->uar_map[page] = ioremap(pci_resource_start(priv->dev.pdev, 2) +
					   page * MLX4_ICM_PAGE_SIZE,
					   MLX4_ICM_PAGE_SIZE);
		if (!t->uar_map[page])
			return NULL;
	}
	return t->uar_map[page] + MLX4_EQ_DOORBELL + 8 * (eqn % 4);
}

/* Also for a half-built EQ: no array yet, or pages not all allocated. */
static void mlx4_eq_free_pages(struct mlx4_priv *priv, struct mlx4_eq *eq)
{
	int i;

	for (i = 0; eq->pages && i < eq->npages; i++)
		if (eq->pages[i].buf)
			dma_free_coherent(mlx4_dma_dev(&priv->dev), PAGE_SIZE,
					  eq->pages[i].buf, eq->pages[i].map);
	kfree(eq->pages);
	eq->pages = NULL;
}

static int mlx4_create_eq(struct mlx4_priv *priv, struct mlx4_eq *eq, u32 nent,
			  u8 intr)
{
	struct mlx4_dev *dev = &priv->dev;
	struct mlx4_cmd_mailbox *mailbox;
	u64 *dma_list = NULL;
	u32 eqn;
	u64 mtt;
	int i, err;

	eq->priv = priv;
	eq->nent = nent;
	eq->cons_index = 0;
	eq->npages = DIV_ROUND_UP(nent * MLX4_EQE_SIZE, PAGE_SIZE);

	err = mlx4_bitmap_alloc(&priv->eq_table.bitmap, 1, 1, &eqn);
	if (err)
		return err;
	eq->eqn = eqn;
	err = mlx4_table_get(priv, &priv->eqc_table, eqn);
	if (err)
		goto err_eqn;
	err = mlx4_table_get(priv, &priv->cmpt_table[MLX4_CMPT_EQ], eqn);
	if (err)
		goto err_eqc;

	eq->pages = kcalloc(eq->npages, sizeof(*eq->pages), GFP_KERNEL);
	dma_list = kcalloc(eq->npages, sizeof(*dma_list), GFP_KERNEL);
	if (!eq->pages || !dma_list) {
		err = -ENOMEM;
		goto err_pages;
	}
	for (i = 0; i < eq->npages; i++) {
		eq->pages[i].buf = dma_alloc_coherent(mlx4_dma_dev(dev), PAGE_SIZE,
						      &eq->pages[i].map, GFP_KERNEL);
		if (!eq->pages[i].buf) {
			err = -ENOMEM;
			goto err_pages;
		}
		dma_list[i] = eq->pages[i].map;
	}

	err = mlx4_mtt_init(dev, eq->npages, PAGE_SHIFT, &eq->mtt);
	if (err)
		goto err_pages;
	err = mlx4_write_mtt(dev, &eq->mtt, 0, eq->npages, dma_list);
	if (err)
		goto err_mtt;

	eq->doorbell = mlx4_eq_doorbell(priv, eqn);
	if (!eq->doorbell) {
		err = -ENOMEM;
		goto err_mtt;
	}

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox)) {
		err = PTR_ERR(mailbox);
		goto err_mtt;
	}
	mtt = mlx4_mtt_addr(dev, &eq->mtt);
	*(__be32 *)(mailbox->buf + EQC_FLAGS) = cpu_to_be32(MLX4_EQ_STATE_ARMED);
	*(u8 *)(mailbox->buf + EQC_LOG_SIZE) = ilog2(nent);
	*(u8 *)(mailbox->buf + EQC_INTR) = intr;
	*(u8 *)(mailbox->buf + EQC_LOG_PAGE_SIZE) = PAGE_SHIFT - MLX4_ICM_PAGE_SHIFT;
	*(u8 *)(mailbox->buf + EQC_MTT_ADDR_H) = upper_32_bits(mtt) & 0xff;
	*(__be32 *)(mailbox->buf + EQC_MTT_ADDR_L) = cpu_to_be32(lower_32_bits(mtt));
	err = mlx4_cmd(dev, mailbox->dma, eqn, 0, MLX4_CMD_SW2HW_EQ,
		       MLX4_CMD_TIME_A);
	mlx4_free_cmd_mailbox(dev, mailbox);
	if (err) {
		dev_err(&dev->pdev->dev, "SW2HW_EQ %u failed: %d\n", eqn, err);
		goto err_mtt;
	}
	eq->hw_owned = true;
	kfree(dma_list);
	return 0;

err_mtt:
	mlx4_mtt_cleanup(dev, &eq->mtt);
err_pages:
	kfree(dma_list);
	mlx4_eq_free_pages(priv, eq);
	mlx4_table_put(priv, &priv->cmpt_table[MLX4_CMPT_EQ], eqn);
err_eqc:
	mlx4_table_put(priv, &priv->eqc_table, eqn);
err_eqn:
	mlx4_bitmap_free(&priv->eq_table.bitmap, eqn, 1);
	return err;
}

static void mlx4_free_eq(struct mlx4_priv *priv, struct mlx4_eq *eq)
{
	struct mlx4_dev *dev = &priv->dev;
	int err;

	if (!eq->hw_owned)
		return;
	/* op_mod 1: we do not want the context back */
	err = mlx4_cmd(dev, 0, eq->eqn, 1, MLX4_CMD_HW2SW_EQ, MLX4_CMD_TIME_A);
	if (err && !mlx4_is_internal_error(dev))
		dev_warn(&dev->pdev->dev, "HW2SW_EQ %d failed: %d\n", eq->eqn, err);
	eq->hw_owned = false;
	mlx4_mtt_cleanup(dev, &eq->mtt);
	mlx4_eq_free_pages(priv, eq);
	mlx4_table_put(priv, &priv->cmpt_table[MLX4_CMPT_EQ], eq->eqn);
	mlx4_table_put(priv, &priv->eqc_table, eq->eqn);
	mlx4_bitmap_free(&priv->eq_table.bitmap, eq->eqn, 1);
}

static int mlx4_map_eq(struct mlx4_priv *priv, struct mlx4_eq *eq, bool unmap)
{
	return mlx4_cmd(&priv->dev, MLX4_ASYNC_EVENT_MASK,
			(unmap ? BIT(31) : 0) | eq->eqn, 0, MLX4_CMD_MAP_EQ,
			MLX4_CMD_TIME_B);
}

/*
 * MSI-X vectors: one async, and one completion vector per port and CPU
 * (as upstream mlx4 asks), at least one
 */
static int mlx4_enable_irqs(struct mlx4_priv *priv, bool use_msix)
{
	struct mlx4_eq_table *t = &priv->eq_table;
	struct pci_dev *pdev = priv->dev.pdev;
	int nreq, nvec;

	t->nvec = 0;
	if (use_msix) {
		nreq = min3(priv->dev.caps.num_ports * (int)num_online_cpus() + 1,
			    priv->dev.caps.num_eqs - priv->dev_cap.reserved_eqs,
			    MLX4_MAX_MSIX);
		nvec = pci_alloc_irq_vectors(pdev, 2, nreq, PCI_IRQ_MSIX);
		if (nvec >= 2) {
			t->nvec = nvec;
			t->num_comp = nvec - 1;
			return 0;
		}
		dev_info(&pdev->dev, "MSI-X not available (%d), using INTx\n", nvec);
	}
	if (!pdev->irq) {
		dev_err(&pdev->dev, "no INTx line either\n");
		return -ENODEV;
	}
	t->num_comp = 1;
	return 0;
}

static void mlx4_free_irqs(struct mlx4_priv *priv)
{
	struct mlx4_eq_table *t = &priv->eq_table;
	int i;

	if (t->intx_requested) {
		free_irq(priv->dev.pdev->irq, priv);
		t->intx_requested = false;
	}
	for (i = 0; i < t->num_eqs; i++) {
		if (!t->eqs[i].irq_requested)
			continue;
		free_irq(t->eqs[i].irq, &t->eqs[i]);
		t->eqs[i].irq_requested = false;
	}
}

static int mlx4_request_irqs(struct mlx4_priv *priv)
{
	struct mlx4_eq_table *t = &priv->eq_table;
	struct pci_dev *pdev = priv->dev.pdev;
	int i, err;

	/*
	 * The names in /proc/interrupts are the in-tree driver's (scripts
	 * that spread a card's interrupts over CPUs match them): INTx
	 * "mlx4_core@pci:<bdf>", the async EQ "mlx4-async@pci:<bdf>", and
	 * completion EQ n (1 up: the async EQ is number 0) "mlx4-n@<bdf>".
	 */
	if (!t->nvec) {
		snprintf(t->eqs[0].irq_name, sizeof(t->eqs[0].irq_name),
			 DRV_NAME "@pci:%s", pci_name(pdev));
		err = request_irq(pdev->irq, mlx4_intx_handler, IRQF_SHARED,
				  t->eqs[0].irq_name, priv);
		if (err)
			return err;
		t->intx_requested = true;
		return 0;
	}
	for (i = 0; i < t->num_eqs; i++) {
		struct mlx4_eq *eq = &t->eqs[i];

		if (i == 0)
			snprintf(eq->irq_name, sizeof(eq->irq_name),
				 "mlx4-async@pci:%s", pci_name(pdev));
		else
			snprintf(eq->irq_name, sizeof(eq->irq_name), "mlx4-%d@%s",
				 i, pci_name(pdev));
		eq->irq = pci_irq_vector(pdev, i);
		err = request_irq(eq->irq, mlx4_msix_handler, 0, eq->irq_name, eq);
		if (err) {
			mlx4_free_irqs(priv);
			return err;
		}
		eq->irq_requested = true;
	}
	return 0;
}

static void mlx4_unmap_doorbells(struct mlx4_priv *priv)
{
	struct mlx4_eq_table *t = &priv->eq_table;
	int i;

	for (i = 0; i < ARRAY_SIZE(t->uar_map); i++) {
		if (t->uar_map[i])
			iounmap(t->uar_map[i]);
		t->uar_map[i] = NULL;
	}
}

/*
 * Everything up to working command events with one interrupt mode; undone
 * completely on failure.
 */
static int mlx4_setup_eqs(struct mlx4_priv *priv, bool use_msix)
{
	struct mlx4_eq_table *t = &priv->eq_table;
	struct mlx4_dev *dev = &priv->dev;
	u32 comp_nent;
	int i, err;

	err = mlx4_enable_irqs(priv, use_msix);
	if (err)
		return err;

	t->eqs = kcalloc(1 + t->num_comp, sizeof(*t->eqs), GFP_KERNEL);
	if (!t->eqs) {
		err = -ENOMEM;
		goto err_vectors;
	}

	err = mlx4_create_eq(priv, &t->eqs[0], MLX4_ASYNC_EQ_NENT, 0);
	if (err)
		goto err_eqs;
	t->num_eqs = 1;
	/* room for one event per CQ plus the spare entries: no overflow */
	comp_nent = roundup_pow_of_two(dev->caps.num_cqs + MLX4_NUM_SPARE_EQE);
	for (i = 1; i <= t->num_comp; i++) {
		err = mlx4_create_eq(priv, &t->eqs[i], comp_nent, t->nvec ? i : 0);
		if (err)
			goto err_eqs;
		t->num_eqs++;
	}

	err = mlx4_request_irqs(priv);
	if (err) {
		dev_err(&dev->pdev->dev, "cannot request interrupts: %d\n", err);
		goto err_eqs;
	}

	err = mlx4_map_eq(priv, &t->eqs[0], false);
	if (err) {
		dev_err(&dev->pdev->dev, "MAP_EQ failed: %d\n", err);
		goto err_irqs;
	}
	for (i = 0; i < t->num_eqs; i++)
		mlx4_eq_set_ci(&t->eqs[i], true);

	err = mlx4_cmd_use_events(priv);
	if (err)
		goto err_unmap;

	/* the interrupt test: NOP must come back through the async EQ */
	err = mlx4_NOP(priv);
	if (err) {
		dev_err(&dev->pdev->dev, "NOP in event mode failed (%s): %d\n",
			t->nvec ? "MSI-X" : "INTx", err);
		goto err_polling;
	}
	dev_info(&dev->pdev->dev, "%s: %d completion EQs, command events work\n",
		 t->nvec ? "MSI-X" : "INTx", t->num_comp);
	return 0;

err_polling:
	mlx4_cmd_use_polling(priv);
err_unmap:
	mlx4_map_eq(priv, &t->eqs[0], true);
err_irqs:
	mlx4_free_irqs(priv);
err_eqs:
	while (t->num_eqs)
		mlx4_free_eq(priv, &t->eqs[--t->num_eqs]);
	kfree(t->eqs);
	t->eqs = NULL;
	mlx4_unmap_doorbells(priv);
err_vectors:
	if (t->nvec)
		pci_free_irq_vectors(dev->pdev);
	t->nvec = 0;
	return err;
}

int mlx4_init_eq_table(struct mlx4_priv *priv)
{
	struct mlx4_eq_table *t = &priv->eq_table;
	struct mlx4_dev *dev = &priv->dev;
	struct mlx4_fw *fw = &priv->fw;
	bool use_msix;
	int err;

	memset(t, 0, sizeof(*t));
	priv->dev_cap.reserved_eqs = max(priv->dev_cap.reserved_eqs,
					 4 * priv->dev_cap.reserved_uars);
	err = mlx4_bitmap_init(&t->bitmap, dev->caps.num_eqs,
			       priv->dev_cap.reserved_eqs);
	if (err)
		return err;

	/* the INTx acknowledge register */
	if (fw->clr_int_bar != 0 ||
	    fw->clr_int_base + 8 > pci_resource_len(dev->pdev, 0)) {
		dev_err(&dev->pdev->dev, "clr_int outside BAR0\n");
		err = -ENODEV;
		goto err_bitmap;
	}
	t->clr_mask = BIT(priv->fw.inta_pin & 31);
	t->clr_int = priv->bar0 + fw->clr_int_base + (priv->fw.inta_pin < 32 ? 4 : 0);

	use_msix = priv->msi_x && msi_x;
	err = mlx4_setup_eqs(priv, use_msix);
	if (err && use_msix) {
		dev_warn(&dev->pdev->dev, "falling back to INTx\n");
		priv->msi_x = false;
		err = mlx4_setup_eqs(priv, false);
	}
	if (err)
		goto err_bitmap;
	dev->caps.num_comp_vectors = t->num_comp;
	return 0;

err_bitmap:
	mlx4_bitmap_cleanup(&t->bitmap);
	return err;
}

void mlx4_cleanup_eq_table(struct mlx4_priv *priv)
{
	struct mlx4_eq_table *t = &priv->eq_table;

	mlx4_cmd_use_polling(priv);
	mlx4_map_eq(priv, &t->eqs[0], true);
	mlx4_free_irqs(priv);
	while (t->num_eqs)
		mlx4_free_eq(priv, &t->eqs[--t->num_eqs]);
	kfree(t->eqs);
	t->eqs = NULL;
	mlx4_unmap_doorbells(priv);
	if (t->nvec)
		pci_free_irq_vectors(priv->dev.pdev);
	t->nvec = 0;
	mlx4_bitmap_cleanup(&t->bitmap);
}

int mlx4_comp_eqn(struct mlx4_priv *priv, unsigned int vector)
{
	if (vector >= priv->eq_table.num_comp)
		return -EINVAL;
	return priv->eq_table.eqs[1 + vector].eqn;
}
