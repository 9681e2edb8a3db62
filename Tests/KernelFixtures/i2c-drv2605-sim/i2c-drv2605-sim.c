// SPDX-License-Identifier: GPL-2.0
/*
 * A test fixture for swift-haptics: an I2C adapter with a simulated TI DRV2605L at 0x5A.
 *
 * It lets the project's hardware-in-loop suite run against the Linux kernel's own I2C stack
 * (i2c-dev, I2C_RDWR, I2C_SLAVE, errno values) inside a VM. It is kept as simple as those tests
 * need: the register file with its reset values, STATUS with the device ID, auto-increment,
 * GO and DEV_RESET clearing themselves after plausible times, calibration and diagnostic results,
 * and a NACK (-ENXIO) for every other address. It drives no actuator.
 */
#include <linux/i2c.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#define DRV_ADDRESS 0x5A
#define REGISTER_COUNT 0x23

struct drv_sim {
	struct i2c_adapter adapter;
	spinlock_t lock;
	u8 regs[REGISTER_COUNT];
	u8 pointer;
	unsigned long go_until;    /* jiffies when GO clears; 0 = not running */
	unsigned long reset_until; /* jiffies when DEV_RESET completes; 0 = none */
};

static const u8 reset_values[REGISTER_COUNT] = {
	[0x00] = 0xE0, [0x01] = 0x40, [0x04] = 0x01, [0x11] = 0x05, [0x12] = 0x19, [0x13] = 0xFF,
	[0x14] = 0x19, [0x15] = 0xFF, [0x16] = 0x3E, [0x17] = 0x8C, [0x18] = 0x0C, [0x19] = 0x6C,
	[0x1A] = 0x36, [0x1B] = 0x93, [0x1C] = 0xF5, [0x1D] = 0xA0, [0x1E] = 0x20, [0x1F] = 0x80,
	[0x20] = 0x33,
};

static struct platform_device *sim_device;

/* How long GO stays set for what MODE and the slots ask for (the project's simulator uses the same). */
static unsigned int go_milliseconds(struct drv_sim *sim)
{
	static const unsigned int calibration[4] = { 250, 350, 600, 1100 };
	unsigned int mode = sim->regs[0x01] & 0x07, total = 0, slot;

	if (mode == 6)
		return 100;
	if (mode == 7)
		return calibration[(sim->regs[0x1E] >> 4) & 3];
	for (slot = 0x04; slot <= 0x0B; slot++) {
		u8 value = sim->regs[slot];
		if (!value)
			break;
		total += (value & 0x80) ? (value & 0x7F) * 10 : 60;
	}
	return total;
}

static void finish_routine(struct drv_sim *sim)
{
	unsigned int mode = sim->regs[0x01] & 0x07;

	if (mode == 7) {
		/* Converged: plausible results for a 175 Hz LRA. */
		sim->regs[0x18] = 0x0A;
		sim->regs[0x19] = 0x75;
		sim->regs[0x1A] = (sim->regs[0x1A] & ~0x03) | 0x02;
		sim->regs[0x20] = 58;
		sim->regs[0x22] = 58;
	}
	sim->regs[0x00] &= ~0x08; /* DIAG_RESULT = 0: passed */
	sim->regs[0x0C] = 0;
	sim->go_until = 0;
}

/* Brings timed state up to now. Called with the lock held. */
static void advance(struct drv_sim *sim)
{
	if (sim->reset_until && time_after_eq(jiffies, sim->reset_until)) {
		memcpy(sim->regs, reset_values, sizeof(sim->regs));
		sim->reset_until = 0;
		sim->go_until = 0;
	}
	if (sim->go_until && time_after_eq(jiffies, sim->go_until))
		finish_routine(sim);
}

static void write_register(struct drv_sim *sim, u8 reg, u8 value)
{
	if (reg >= REGISTER_COUNT || reg == 0x00 || reg == 0x21 || reg == 0x22)
		return; /* out of range or read-only */
	if (reg == 0x01 && (value & 0x80)) {
		sim->regs[0x01] = value;
		sim->reset_until = jiffies + msecs_to_jiffies(1) + 1;
		return;
	}
	if (reg == 0x0C) {
		if ((value & 1) && !(sim->regs[0x0C] & 1) && !(sim->regs[0x01] & 0x40)) {
			unsigned int mode = sim->regs[0x01] & 0x07;
			if (mode == 0 || mode == 6 || mode == 7) {
				sim->regs[0x0C] = 1;
				sim->go_until = jiffies + msecs_to_jiffies(go_milliseconds(sim)) + 1;
				sim->regs[0x21] = 0xE4; /* VBAT while driving: about 5.0 V */
			}
		} else if (!(value & 1)) {
			sim->regs[0x0C] = 0;
			sim->go_until = 0;
		}
		return;
	}
	if (reg == 0x1E) {
		sim->regs[0x1E] = (value & ~0x05) | (sim->regs[0x1E] & 0x04) | ((value & 1) ? 0x04 : 0);
		return;
	}
	if (reg == 0x01 && (value & 0x40)) {
		/* Standby cancels playback. */
		sim->regs[0x0C] = 0;
		sim->go_until = 0;
	}
	sim->regs[reg] = value;
}

static int drv_sim_xfer(struct i2c_adapter *adapter, struct i2c_msg *msgs, int count)
{
	struct drv_sim *sim = i2c_get_adapdata(adapter);
	unsigned long flags;
	int index, byte;

	for (index = 0; index < count; index++)
		if (msgs[index].addr != DRV_ADDRESS)
			return -ENXIO;

	spin_lock_irqsave(&sim->lock, flags);
	advance(sim);
	if (sim->reset_until) {
		spin_unlock_irqrestore(&sim->lock, flags);
		return -EREMOTEIO; /* the chip does not answer while it resets */
	}
	for (index = 0; index < count; index++) {
		struct i2c_msg *msg = &msgs[index];
		if (msg->flags & I2C_M_RD) {
			for (byte = 0; byte < msg->len; byte++) {
				u8 reg = sim->pointer++;
				msg->buf[byte] = reg < REGISTER_COUNT ? sim->regs[reg] : 0;
				if (reg == 0x00)
					sim->regs[0x00] &= 0xF0; /* flags clear on read */
			}
		} else if (msg->len > 0) {
			sim->pointer = msg->buf[0];
			for (byte = 1; byte < msg->len; byte++)
				write_register(sim, sim->pointer++, msg->buf[byte]);
		}
	}
	spin_unlock_irqrestore(&sim->lock, flags);
	return count;
}

static u32 drv_sim_functionality(struct i2c_adapter *adapter)
{
	return I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL;
}

static const struct i2c_algorithm drv_sim_algorithm = {
	.master_xfer = drv_sim_xfer,
	.functionality = drv_sim_functionality,
};

static int __init drv_sim_init(void)
{
	struct drv_sim *sim;
	int error;

	sim_device = platform_device_register_simple("i2c-drv2605-sim", -1, NULL, 0);
	if (IS_ERR(sim_device))
		return PTR_ERR(sim_device);
	sim = devm_kzalloc(&sim_device->dev, sizeof(*sim), GFP_KERNEL);
	if (!sim) {
		platform_device_unregister(sim_device);
		return -ENOMEM;
	}
	spin_lock_init(&sim->lock);
	memcpy(sim->regs, reset_values, sizeof(sim->regs));
	sim->adapter.owner = THIS_MODULE;
	sim->adapter.algo = &drv_sim_algorithm;
	sim->adapter.dev.parent = &sim_device->dev;
	strscpy(sim->adapter.name, "drv2605-sim", sizeof(sim->adapter.name));
	i2c_set_adapdata(&sim->adapter, sim);
	platform_set_drvdata(sim_device, sim);
	error = i2c_add_adapter(&sim->adapter);
	if (error)
		platform_device_unregister(sim_device);
	return error;
}

static void __exit drv_sim_exit(void)
{
	struct drv_sim *sim = platform_get_drvdata(sim_device);

	i2c_del_adapter(&sim->adapter);
	platform_device_unregister(sim_device);
}

module_init(drv_sim_init);
module_exit(drv_sim_exit);
MODULE_DESCRIPTION("I2C adapter with a simulated DRV2605L at 0x5A (swift-haptics test fixture)");
MODULE_LICENSE("GPL");
