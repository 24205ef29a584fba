// SPDX-License-Identifier: GPL-2.0
/*
 * The firmware command interface: the HCR (seven big-endian dwords in BAR0),
 * polled until the EQs exist, then completed by command-completion events
 * carrying a per-command token.  Mailboxes come from a DMA pool.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>

#include "mlx4_core.h"

/* HCR dwords */
enum {
	HCR_IN_PARAM	= 0x00,
	HCR_IN_MOD	= 0x08,
	HCR_OUT_PARAM	= 0x0c,
	HCR_TOKEN	= 0x14,
	HCR_STATUS	= 0x18,
};

#define HCR_GO_BIT		23
#define HCR_E_BIT		22
#define HCR_T_BIT		21
#define HCR_OPMOD_SHIFT		12
#define HCR_POST_TIMEOUT_MS	10000	/* GO must clear within this */

/* HW2SW_MPT's answer for a region memory windows are still bound to */
#define MLX4_STAT_REG_BOUND	0x21

struct mlx4_cmd_status_map {
	u8	status;
	int	err;
};

static const struct mlx4_cmd_status_map mlx4_status_map[] = {
	{ 0x01, -EIO },		/* internal error */
	{ 0x02, -EPERM },	/* bad opcode */
	{ 0x03, -EINVAL },	/* bad parameter */
	{ 0x04, -ENXIO },	/* bad system state */
	{ 0x05, -EBADF },	/* bad resource */
	{ 0x06, -EBUSY },	/* resource busy */
	{ 0x08, -ENOMEM },	/* limits exceeded */
	{ 0x09, -EBADF },	/* bad resource state */
	{ 0x0a, -EBADF },	/* bad index */
	{ 0x0b, -EFAULT },	/* bad NVMEM */
	{ 0x0c, -ENFILE },	/* ICM error */
	{ 0x10, -EINVAL },	/* bad QP state */
	{ 0x20, -EFAULT },	/* bad segment parameter */
	{ MLX4_STAT_REG_BOUND, -EBUSY },
	{ 0x22, -EAGAIN },	/* LAM not present */
	{ 0x30, -EINVAL },	/* bad packet */
	{ 0x40, -ENOMEM },	/* bad size */
	{ 0x50, -EACCES },	/* multi-function request */
};

static int mlx4_status_to_errno(u8 status)
{
	int i;

	if (!status)
		return 0;
	for (i = 0; i < ARRAY_SIZE(mlx4_status_map); i++)
		if (mlx4_status_map[i].status == status)
			return mlx4_status_map[i].err;
	return -EIO;
}

/* [any] The card failed and is reset: it no longer touches host memory. */
bool mlx4_is_internal_error(struct mlx4_dev *dev)
{
	return atomic_read(&mlx4_priv(dev)->err_state) == MLX4_ERR_DEAD;
}
EXPORT_SYMBOL(mlx4_is_internal_error);

static bool mlx4_cmd_refused(struct mlx4_priv *priv)
{
	return atomic_read(&priv->err_state) != MLX4_ERR_NONE;
}

/* The HCR is busy while GO is set or until the card took our toggle. */
static bool mlx4_hcr_pending(struct mlx4_cmd *cmd)
{
	u32 status = ioread32be(cmd->hcr + HCR_STATUS);

	return (status & BIT(HCR_GO_BIT)) ||
	       !!(status & BIT(HCR_T_BIT)) == cmd->toggle;
}

static int mlx4_hcr_post(struct mlx4_priv *priv, u64 in_param, u64 out_param,
			 u32 in_mod, u8 op_mod, u16 op, u16 token, bool event)
{
	struct mlx4_cmd *cmd = &priv->cmd;
	unsigned long end;

	lockdep_assert_held(&cmd->hcr_mutex);

	/* nothing reaches a failed card (mlx4_cmd_fence()) */
	if (mlx4_cmd_refused(priv))
		return -EIO;
	/* in event mode a previous command may still be finishing */
	end = jiffies + msecs_to_jiffies(event ? HCR_POST_TIMEOUT_MS : 0);
	while (mlx4_hcr_pending(cmd)) {
		if (mlx4_cmd_refused(priv))
			return -EIO;
		if (time_after_eq(jiffies, end)) {
			dev_err_ratelimited(&priv->dev.pdev->dev,
					    "command 0x%x not posted: the HCR still busy, firmware timed out\n",
					    op);
			return -ETIMEDOUT;
		}
		usleep_range(20, 100);
	}

	iowrite32be(upper_32_bits(in_param), cmd->hcr + HCR_IN_PARAM);
	iowrite32be(lower_32_bits(in_param), cmd->hcr + HCR_IN_PARAM + 4);
	iowrite32be(in_mod, cmd->hcr + HCR_IN_MOD);
	iowrite32be(upper_32_bits(out_param), cmd->hcr + HCR_OUT_PARAM);
	iowrite32be(lower_32_bits(out_param), cmd->hcr + HCR_OUT_PARAM + 4);
	iowrite32be((u32)token << 16, cmd->hcr + HCR_TOKEN);
	/* the parameters must be in place before GO */
	wmb();
	iowrite32be(BIT(HCR_GO_BIT) | ((u32)cmd->toggle << HCR_T_BIT) |
		    (event ? BIT(HCR_E_BIT) : 0) |
		    ((u32)(op_mod & 0xf) << HCR_OPMOD_SHIFT) | (op & 0xfff),
		    cmd->hcr + HCR_STATUS);
	cmd->toggle ^= 1;
	return 0;
}

static int mlx4_cmd_poll(struct mlx4_priv *priv, u64 in_param, u64 *out_param,
			 bool out_is_imm, u32 in_mod, u8 op_mod, u16 op,
			 unsigned long timeout_ms, u8 *fw_status)
{
	struct mlx4_cmd *cmd = &priv->cmd;
	unsigned long end;
	unsigned int spins = 0;
	u8 status;
	int err;

	mutex_lock(&cmd->hcr_mutex);
	err = mlx4_hcr_post(priv, in_param, out_param ? *out_param : 0, in_mod,
			    op_mod, op, 0xffff, false);
	if (err)
		goto out;

	end = jiffies + msecs_to_jiffies(timeout_ms);
	while (mlx4_hcr_pending(cmd)) {
		/* the error path waits for this mutex: give it up at once */
		if (mlx4_cmd_refused(priv)) {
			err = -EIO;
			goto out;
		}
		if (time_after_eq(jiffies, end)) {
			dev_err(&priv->dev.pdev->dev,
				"command 0x%x timed out after %lu ms (polling)\n",
				op, timeout_ms);
			err = -ETIMEDOUT;
			goto out;
		}
		if (++spins < 100)
			cond_resched();
		else
			usleep_range(100, 200);
	}

	if (out_is_imm && out_param)
		*out_param = (u64)ioread32be(cmd->hcr + HCR_OUT_PARAM) << 32 |
			     ioread32be(cmd->hcr + HCR_OUT_PARAM + 4);
	status = ioread32be(cmd->hcr + HCR_STATUS) >> 24;
	*fw_status = status;
	err = mlx4_status_to_errno(status);
	if (err)
		dev_err_ratelimited(&priv->dev.pdev->dev,
				    "command 0x%x (in_mod 0x%x op_mod %u) failed: status 0x%x\n",
				    op, in_mod, op_mod, status);
out:
	mutex_unlock(&cmd->hcr_mutex);
	return err;
}

static int mlx4_cmd_wait(struct mlx4_priv *priv, u64 in_param, u64 *out_param,
			 bool out_is_imm, u32 in_mod, u8 op_mod, u16 op,
			 unsigned long timeout_ms, u8 *fw_status)
{
	struct mlx4_cmd *cmd = &priv->cmd;
	struct mlx4_cmd_context *ctx;
	unsigned long left;
	u16 token;
	int err;

	down(&cmd->event_sem);

	spin_lock_irq(&cmd->context_lock);
	ctx = &cmd->contexts[cmd->free_head];
	cmd->free_head = ctx->next_free;
	/* a new token, so that a late event for the last user is ignored */
	ctx->token += cmd->token_mask + 1;
	ctx->busy = true;
	ctx->result = -EIO;
	ctx->fw_status = 0;
	ctx->out_param = 0;
	reinit_completion(&ctx->done);
	token = ctx->token;
	/*
	 * The error path raises err_state before it wakes the busy contexts
	 * under this lock: either it finds ours, or we see the error here and
	 * do not wait out the timeout for a card that will never answer.
	 */
	if (mlx4_cmd_refused(priv)) {
		spin_unlock_irq(&cmd->context_lock);
		err = -EIO;
		goto out;
	}
	spin_unlock_irq(&cmd->context_lock);

	mutex_lock(&cmd->hcr_mutex);
	err = mlx4_hcr_post(priv, in_param, out_param ? *out_param : 0, in_mod,
			    op_mod, op, token, true);
	mutex_unlock(&cmd->hcr_mutex);
	if (err)
		goto out;

	left = wait_for_completion_timeout(&ctx->done,
					   msecs_to_jiffies(timeout_ms));
	spin_lock_irq(&cmd->context_lock);
	if (!left && ctx->busy) {
		err = mlx4_cmd_refused(priv) ? -EIO : -ETIMEDOUT;
	} else {
		err = ctx->result;
		*fw_status = ctx->fw_status;
		if (out_is_imm && out_param)
			*out_param = ctx->out_param;
	}
	spin_unlock_irq(&cmd->context_lock);
	if (err == -ETIMEDOUT) {
		dev_err(&priv->dev.pdev->dev,
			"command 0x%x (in_mod 0x%x) timed out after %lu ms (event mode)\n",
			op, in_mod, timeout_ms);
	} else if (err && err != -EIO) {
		dev_err_ratelimited(&priv->dev.pdev->dev,
				    "command 0x%x (in_mod 0x%x op_mod %u) failed: %d\n",
				    op, in_mod, op_mod, err);
	}
out:
	spin_lock_irq(&cmd->context_lock);
	ctx->busy = false;
	ctx->next_free = cmd->free_head;
	cmd->free_head = ctx - cmd->contexts;
	spin_unlock_irq(&cmd->context_lock);
	up(&cmd->event_sem);
	return err;
}

/* [any] A command-completion EQE arrived (EQ interrupt). */
void mlx4_cmd_event(struct mlx4_priv *priv, u16 token, u8 status, u64 out_param)
{
	struct mlx4_cmd *cmd = &priv->cmd;
	struct mlx4_cmd_context *ctx;
	unsigned long flags;

	spin_lock_irqsave(&cmd->context_lock, flags);
	if (!cmd->contexts) {
		spin_unlock_irqrestore(&cmd->context_lock, flags);
		return;
	}
	ctx = &cmd->contexts[token & cmd->token_mask];
	if (!ctx->busy || ctx->token != token) {
		spin_unlock_irqrestore(&cmd->context_lock, flags);
		dev_warn_ratelimited(&priv->dev.pdev->dev,
				     "command completion with stale token 0x%x\n",
				     token);
		return;
	}
	ctx->result = mlx4_status_to_errno(status);
	ctx->fw_status = status;
	if (ctx->result)
		dev_dbg(&priv->dev.pdev->dev, "command status 0x%x\n", status);
	ctx->out_param = out_param;
	ctx->busy = false;
	complete(&ctx->done);
	spin_unlock_irqrestore(&cmd->context_lock, flags);
}

/*
 * [sleep] err_state is raised: once this returns no command writes the HCR
 * (a post under way has finished; a poller gives the mutex up at once).
 */
void mlx4_cmd_fence(struct mlx4_priv *priv)
{
	mutex_lock(&priv->cmd.hcr_mutex);
	mutex_unlock(&priv->cmd.hcr_mutex);
}

/* After a catastrophic error and the reset: every waiting command fails now. */
void mlx4_cmd_wake_all(struct mlx4_priv *priv)
{
	struct mlx4_cmd *cmd = &priv->cmd;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&cmd->context_lock, flags);
	for (i = 0; cmd->contexts && i < cmd->max_cmds; i++) {
		struct mlx4_cmd_context *ctx = &cmd->contexts[i];

		if (!ctx->busy)
			continue;
		ctx->result = -EIO;
		ctx->busy = false;
		complete(&ctx->done);
	}
	spin_unlock_irqrestore(&cmd->context_lock, flags);
}

/*
 * A command that hands an object back from the card (or closes the card)
 * and is refused by the firmware leaves the card owning what its caller
 * is about to free.  As in 6.1, that is a failed card, except for an MPT
 * still bound to memory windows (the user's doing).
 */
static bool mlx4_closing_cmd_fatal(u16 op, u8 fw_status)
{
	switch (op) {
	case MLX4_CMD_CLOSE_HCA:
	case MLX4_CMD_HW2SW_EQ:
	case MLX4_CMD_HW2SW_CQ:
	case MLX4_CMD_2RST_QP:
	case MLX4_CMD_HW2SW_SRQ:
	case MLX4_CMD_UNMAP_ICM:
	case MLX4_CMD_UNMAP_ICM_AUX:
	case MLX4_CMD_UNMAP_FA:
		return true;
	case MLX4_CMD_HW2SW_MPT:
		return fw_status != MLX4_STAT_REG_BOUND;
	default:
		return false;
	}
}

static int mlx4_cmd_exec(struct mlx4_dev *dev, u64 in_param, u64 *out_param,
			 bool out_is_imm, u32 in_mod, u8 op_mod, u16 op,
			 unsigned long timeout_ms)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	u8 fw_status = 0;
	int err;

	if (mlx4_cmd_refused(priv)) {
		err = -EIO;
		goto out;
	}
	down_read(&priv->cmd.mode_sem);
	if (priv->cmd.use_events)
		err = mlx4_cmd_wait(priv, in_param, out_param, out_is_imm,
				    in_mod, op_mod, op, timeout_ms, &fw_status);
	else
		err = mlx4_cmd_poll(priv, in_param, out_param, out_is_imm,
				    in_mod, op_mod, op, timeout_ms, &fw_status);
	up_read(&priv->cmd.mode_sem);
	/*
	 * Firmware that stops answering (a command not done in its time, or
	 * the HCR still busy with an earlier one after HCR_POST_TIMEOUT_MS)
	 * is as good as dead: as 6.1, the card is reset, and the command
	 * failed as any command on a dead card does.
	 */
	if (err == -ETIMEDOUT && op != MLX4_CMD_NOP && READ_ONCE(priv->loaded)) {
		mlx4_enter_error_state(priv);
		return -EIO;
	}
	/*
	 * The card is reset (it lets go of the object) and the command
	 * reported done, so that its caller frees as after a success.
	 */
	if (err && fw_status && mlx4_closing_cmd_fatal(op, fw_status) &&
	    READ_ONCE(priv->loaded)) {
		dev_err(&priv->dev.pdev->dev,
			"closing command 0x%x (in_mod 0x%x) failed: status 0x%x: the card is failed\n",
			op, in_mod, fw_status);
		mlx4_enter_error_state(priv);
		return 0;
	}
out:
	/*
	 * A command that failed on a failing card returns once the card is
	 * reset: its caller may then free what the card used.
	 */
	if (err && mlx4_cmd_refused(priv))
		mlx4_wait_quiet(priv);
	return err;
}

int mlx4_cmd_box(struct mlx4_dev *dev, u64 in_param, u64 out_param, u32 in_modifier,
		 u8 op_modifier, u16 op, unsigned long timeout_ms)
{
	return mlx4_cmd_exec(dev, in_param, &out_param, false, in_modifier,
			     op_modifier, op, timeout_ms);
}
EXPORT_SYMBOL(mlx4_cmd_box);

int mlx4_cmd(struct mlx4_dev *dev, u64 in_param, u32 in_modifier, u8 op_modifier,
	     u16 op, unsigned long timeout_ms)
{
	return mlx4_cmd_exec(dev, in_param, NULL, false, in_modifier,
			     op_modifier, op, timeout_ms);
}
EXPORT_SYMBOL(mlx4_cmd);

int mlx4_cmd_imm(struct mlx4_dev *dev, u64 in_param, u64 *out_param, u32 in_modifier,
		 u8 op_modifier, u16 op, unsigned long timeout_ms)
{
	u64 out = 0;
	int err;

	err = mlx4_cmd_exec(dev, in_param, &out, true, in_modifier,
			    op_modifier, op, timeout_ms);
	if (!err && out_param)
		*out_param = out;
	return err;
}
EXPORT_SYMBOL(mlx4_cmd_imm);

struct mlx4_cmd_mailbox *mlx4_alloc_cmd_mailbox(struct mlx4_dev *dev)
{
	struct mlx4_cmd_mailbox *mailbox;

	mailbox = kmalloc(sizeof(*mailbox), GFP_KERNEL);
	if (!mailbox)
		return ERR_PTR(-ENOMEM);
	mailbox->buf = dma_pool_zalloc(mlx4_priv(dev)->cmd.pool, GFP_KERNEL,
				       &mailbox->dma);
	if (!mailbox->buf) {
		kfree(mailbox);
		return ERR_PTR(-ENOMEM);
	}
	return mailbox;
}
EXPORT_SYMBOL(mlx4_alloc_cmd_mailbox);

void mlx4_free_cmd_mailbox(struct mlx4_dev *dev, struct mlx4_cmd_mailbox *mailbox)
{
	if (IS_ERR_OR_NULL(mailbox))
		return;
	dma_pool_free(mlx4_priv(dev)->cmd.pool, mailbox->buf, mailbox->dma);
	kfree(mailbox);
}
EXPORT_SYMBOL(mlx4_free_cmd_mailbox);

/* Polling mode; the HCR as the reset left it (GO 0, T 0). */
int mlx4_cmd_init(struct mlx4_priv *priv)
{
	struct mlx4_cmd *cmd = &priv->cmd;

	mutex_init(&cmd->hcr_mutex);
	init_rwsem(&cmd->mode_sem);
	spin_lock_init(&cmd->context_lock);
	cmd->use_events = false;
	cmd->toggle = 1;
	cmd->contexts = NULL;
	cmd->hcr = priv->bar0 + MLX4_HCR_BASE;
	cmd->pool = dma_pool_create(DRV_NAME, &priv->dev.pdev->dev,
				    MLX4_MAILBOX_SIZE, MLX4_MAILBOX_SIZE, 0);
	if (!cmd->pool)
		return -ENOMEM;
	return 0;
}

void mlx4_cmd_cleanup(struct mlx4_priv *priv)
{
	dma_pool_destroy(priv->cmd.pool);
	priv->cmd.pool = NULL;
}

/* From here on commands complete by EQE (the async EQ takes CMD events). */
int mlx4_cmd_use_events(struct mlx4_priv *priv)
{
	struct mlx4_cmd *cmd = &priv->cmd;
	int i;

	cmd->max_cmds = 1 << priv->fw.log_max_cmds;
	cmd->contexts = kcalloc(cmd->max_cmds, sizeof(*cmd->contexts),
				GFP_KERNEL);
	if (!cmd->contexts)
		return -ENOMEM;
	for (i = 0; i < cmd->max_cmds; i++) {
		cmd->contexts[i].token = i;
		cmd->contexts[i].next_free = i + 1;
		init_completion(&cmd->contexts[i].done);
	}
	cmd->contexts[cmd->max_cmds - 1].next_free = -1;
	cmd->free_head = 0;
	cmd->token_mask = roundup_pow_of_two(cmd->max_cmds) - 1;
	sema_init(&cmd->event_sem, cmd->max_cmds);

	down_write(&cmd->mode_sem);
	cmd->use_events = true;
	up_write(&cmd->mode_sem);
	return 0;
}

void mlx4_cmd_use_polling(struct mlx4_priv *priv)
{
	struct mlx4_cmd *cmd = &priv->cmd;
	struct mlx4_cmd_context *contexts;

	if (!cmd->contexts)
		return;
	/* no command is running once we hold the semaphore for writing */
	down_write(&cmd->mode_sem);
	cmd->use_events = false;
	up_write(&cmd->mode_sem);

	spin_lock_irq(&cmd->context_lock);
	contexts = cmd->contexts;
	cmd->contexts = NULL;
	spin_unlock_irq(&cmd->context_lock);
	kfree(contexts);
}
