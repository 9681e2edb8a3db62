// SPDX-License-Identifier: GPL-2.0
/*
 * A test fixture for swift-haptics: an I2C adapter with an emulated Dialog DA7280 at 0x4A.
 *
 * Every fact about the chip (reset values, read-only and write-one-to-clear registers, what the
 * direct register override drives, the faults an actuator raises) comes from da7280-model.h,
 * generated from Sources/DA7280Simulator/DA7280Model.swift by `drv2605-model header --chip da7280`;
 * the project's simulated DA7280 applies the same model.
 *
 * Parameters (/sys/module/i2c_da7280_sim/parameters):
 *   actuator          0 a working LRA, 1 open (nothing connected), 2 shorted
 *   supply_mv         the chip's VDD in millivolts: below the under-voltage lock-out (2800) the chip
 *                     latches E_UVLO and stays idle until it is cleared
 *   fresh_chip        writing 1 puts a new chip on the board (power-on values)
 *   drive_permille    read-only: what the outputs drive now, in thousandths of ACTUATOR_NOMMAX
 *                     (the rated voltage; without acceleration 0x7F drives ABSMAX, more than 1000)
 *   drive_peak        read-only: the largest |drive_permille| since the last fresh_chip
 *   dro_writes        read-only: writes that changed the drive (TOP_CTL1 or TOP_CTL2)
 *   drive_timeline    "NS PERMILLE" for each change of the register-driven drive (DRO), on the
 *                     monotonic clock; writing anything clears it
 *   period_timeline   each change of the LRA_PER the LRA is driven at with frequency tracking off
 *                     (da_model_fixed_period; 0: tracking, at resonance), in order, on one line (the
 *                     last 256); writing anything clears it
 *   sequences_played  read-only: sequences SEQ_START started from the waveform memory (RTWM)
 *   sequence_timeline read-only: the last one's drive, "microseconds:permille" level changes from its
 *                     trigger (then "stopped:MICROSECONDS" if it was cut short); drive_peak counts it
 *   registers         read-only: registers 0x00-0xE7 in hex (the waveform memory from 0x84)
 *   attach_da7280     writing 1 instantiates the kernel's da7280 driver on the chip (an I2C client
 *                     "da7280" with an interrupt, which its probe requires, and the device
 *                     properties of an LRA); writing 0 removes it
 *   device_tree_bus  writing 1 adds a second adapter to the same chip, bound to the device tree node
 *                    compatible "swift-haptics,da7280-sim-bus" (Tests/KernelFixtures/device-tree/
 *                    haptics-overlay.dts): the I2C core makes the chips that node declares, with
 *                    their properties, as it does for a Pi's I2C controller; ENODEV on a machine
 *                    without that node. Writing 0 removes it.
 */
#include <linux/i2c.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/irq.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "da7280-model.h"

#define DA_ADDRESS 0x4A

#define DA_TIMELINE_MAX 128

struct da_sim {
	struct i2c_adapter adapter;
	spinlock_t lock;
	u8 regs[DA_MODEL_REGISTER_COUNT];
	u8 pointer;
	/* The sequence the waveform memory plays: when it started and ends (0: none), and its drive. */
	ktime_t sequence_start;
	ktime_t sequence_end;
	long timeline_us[DA_TIMELINE_MAX];
	int timeline_permille[DA_TIMELINE_MAX];
	int timeline_count;
	long stopped_us;
};

static struct platform_device *sim_device;
static struct da_sim *the_sim;
static struct i2c_client *da7280_client;
static int client_irq;

static int actuator;
module_param(actuator, int, 0644);
MODULE_PARM_DESC(actuator, "0 a working LRA, 1 open, 2 shorted");
static int drive_permille;
module_param(drive_permille, int, 0444);
static int drive_peak;
module_param(drive_peak, int, 0444);
static int dro_writes;
module_param(dro_writes, int, 0444);
static int supply_mv = 3300;

/* The register-driven drive as it changes (drive-timeline.h). */
#include "drive-timeline.h"
static int sequences_played;
module_param(sequences_played, int, 0444);

/* The drive frequency as it changes: the fixed LRA_PER (0 while the chip tracks resonance). */
#define PERIOD_TIMELINE_SLOTS 256
static int period_timeline_value[PERIOD_TIMELINE_SLOTS];
static unsigned int period_timeline_count;
static int period_timeline_last;

static void period_timeline_note(int period)
{
	if (period == period_timeline_last)
		return;
	period_timeline_last = period;
	period_timeline_value[period_timeline_count % PERIOD_TIMELINE_SLOTS] = period;
	period_timeline_count++;
}

static int period_timeline_get(char *buffer, const struct kernel_param *kp)
{
	unsigned int index, first = period_timeline_count > PERIOD_TIMELINE_SLOTS ? period_timeline_count - PERIOD_TIMELINE_SLOTS : 0;
	int length = 0;

	/* At most 256 values of at most 5 digits and a space: well within the page. */
	for (index = first; index < period_timeline_count; index++)
		length += scnprintf(buffer + length, PAGE_SIZE - length, "%s%d", index > first ? " " : "",
				    period_timeline_value[index % PERIOD_TIMELINE_SLOTS]);
	length += scnprintf(buffer + length, PAGE_SIZE - length, "\n");
	return length;
}

static int period_timeline_set(const char *value, const struct kernel_param *kp)
{
	period_timeline_count = 0;
	return 0;
}

static const struct kernel_param_ops period_timeline_ops = { .get = period_timeline_get, .set = period_timeline_set };
module_param_cb(period_timeline, &period_timeline_ops, NULL, 0644);
MODULE_PARM_DESC(period_timeline, "each change of the fixed LRA_PER (0: tracking), in order; write to clear");

static void power_on(struct da_sim *sim)
{
	memcpy(sim->regs, da_model_reset_values, sizeof(sim->regs));
	sim->pointer = 0;
	sim->sequence_end = 0;
	sim->timeline_count = 0;
	sim->stopped_us = -1;
	drive_permille = 0;
	drive_peak = 0;
	dro_writes = 0;
	sequences_played = 0;
}

/* E_SEQ_DONE once the playing sequence's time is over (SimulatedDA7280.finishSequence). */
static void finish_sequence(struct da_sim *sim)
{
	if (sim->sequence_end && ktime_compare(ktime_get(), sim->sequence_end) >= 0) {
		sim->sequence_end = 0;
		sim->regs[DA_MODEL_REG_IRQ_EVENT1] |= DA_MODEL_E_SEQ_DONE;
	}
}

static void stop_sequence(struct da_sim *sim)
{
	if (!sim->sequence_end)
		return;
	sim->stopped_us = ktime_to_us(ktime_sub(ktime_get(), sim->sequence_start));
	sim->sequence_end = 0;
}

/* SEQ_START rising in RTWM plays PS_SEQ_ID from the waveform memory (da_model_sequence_playback), warning
   E_MEM_TYPE first when the data type does not match, or latches E_SEQ_FAULT with its diagnosis; leaving
   RTWM or clearing SEQ_START stops it (SimulatedDA7280.applySequenceControl). */
static void apply_sequence_control(struct da_sim *sim, u8 old)
{
	u8 control = sim->regs[DA_MODEL_REG_TOP_CTL1];
	bool running = (control & DA_MODEL_MODE_MASK) == DA_MODEL_MODE_RTWM && (control & DA_MODEL_SEQ_START);
	bool was_running = (old & DA_MODEL_MODE_MASK) == DA_MODEL_MODE_RTWM && (old & DA_MODEL_SEQ_START);
	long length;
	int index;

	if (sim->sequence_end && !running)
		stop_sequence(sim);
	if (!running || was_running || (sim->regs[DA_MODEL_REG_IRQ_EVENT1] & DA_MODEL_STOPS_DRIVING))
		return;
	if (da_model_memory_type_mismatch(sim->regs)) {
		sim->regs[DA_MODEL_REG_IRQ_EVENT1] |= DA_MODEL_E_WARNING;
		sim->regs[DA_MODEL_REG_WARNING_DIAG] |= DA_MODEL_E_MEM_TYPE;
	}
	length = da_model_sequence_playback(sim->regs, sim->timeline_us, sim->timeline_permille, DA_TIMELINE_MAX,
					    &sim->timeline_count);
	if (length < 0) {
		sim->regs[DA_MODEL_REG_IRQ_EVENT1] |= DA_MODEL_E_SEQ_FAULT;
		sim->regs[DA_MODEL_REG_SEQ_DIAG] |= length == -1 ? DA_MODEL_E_SEQ_ID_FAULT : DA_MODEL_E_MEM_FAULT;
		sim->timeline_count = 0;
		return;
	}
	sim->sequence_start = ktime_get();
	sim->sequence_end = ktime_add_us(sim->sequence_start, length);
	sim->stopped_us = -1;
	sequences_played++;
	for (index = 0; index < sim->timeline_count; index++)
		if (abs(sim->timeline_permille[index]) > drive_peak)
			drive_peak = abs(sim->timeline_permille[index]);
}

/* VDD below the lock-out latches E_UVLO and shows it in IRQ_STATUS1 (SimulatedDA7280.applySupply). */
static void apply_supply(struct da_sim *sim)
{
	if (supply_mv < DA_MODEL_UVLO_MV) {
		sim->regs[DA_MODEL_REG_IRQ_STATUS1] |= DA_MODEL_E_UVLO;
		sim->regs[DA_MODEL_REG_IRQ_EVENT1] |= DA_MODEL_E_UVLO;
	} else {
		sim->regs[DA_MODEL_REG_IRQ_STATUS1] &= ~DA_MODEL_E_UVLO;
	}
}

/* The drive the registers ask for, and a fault when the actuator has one (SimulatedDA7280.update). */
static void update(struct da_sim *sim)
{
	int drive = da_model_drive_permille(sim->regs);
	u8 fault = 0;

	period_timeline_note(da_model_fixed_period(sim->regs));
	if (sim->sequence_end && (sim->regs[DA_MODEL_REG_IRQ_EVENT1] & DA_MODEL_STOPS_DRIVING))
		stop_sequence(sim);
	if (sim->sequence_end) {
		/* The memory drives: an actuator fault shows as soon as it does. */
		if (actuator == 2)
			fault = DA_MODEL_E_OC_FAULT;
		else if (actuator == 1 && (sim->regs[DA_MODEL_REG_TOP_CFG1] & DA_MODEL_BEMF_SENSE_EN))
			fault = DA_MODEL_E_ACTUATOR_FAULT;
		if (fault) {
			sim->regs[DA_MODEL_REG_IRQ_EVENT1] |= fault;
			sim->regs[DA_MODEL_REG_IRQ_STATUS1] |= fault;
			stop_sequence(sim);
		}
		return;
	}

	if (actuator == 2)
		fault = DA_MODEL_E_OC_FAULT;
	else if (actuator == 1 && (sim->regs[DA_MODEL_REG_TOP_CFG1] & DA_MODEL_BEMF_SENSE_EN))
		fault = DA_MODEL_E_ACTUATOR_FAULT;
	if (drive != 0 && fault) {
		sim->regs[DA_MODEL_REG_IRQ_EVENT1] |= fault;
		sim->regs[DA_MODEL_REG_IRQ_STATUS1] |= fault;
		drive = 0;
	} else if (drive != 0) {
		sim->regs[DA_MODEL_REG_IRQ_STATUS1] &= ~DA_MODEL_ACTUATOR_CONDITIONS;
	}
	if (drive != drive_permille)
		dro_writes++;
	drive_timeline_note(drive);
	drive_permille = drive;
	if (abs(drive) > drive_peak)
		drive_peak = abs(drive);
}

static int da_sim_xfer(struct i2c_adapter *adapter, struct i2c_msg *msgs, int count)
{
	struct da_sim *sim = i2c_get_adapdata(adapter);
	unsigned long flags;
	int index, byte;

	for (index = 0; index < count; index++)
		if (msgs[index].addr != DA_ADDRESS)
			return -ENXIO;
	spin_lock_irqsave(&sim->lock, flags);
	finish_sequence(sim);
	for (index = 0; index < count; index++) {
		struct i2c_msg *msg = &msgs[index];
		u8 control = sim->regs[DA_MODEL_REG_TOP_CTL1];

		if (msg->flags & I2C_M_RD) {
			for (byte = 0; byte < msg->len; byte++)
				msg->buf[byte] = sim->regs[sim->pointer++];
		} else if (msg->len > 0) {
			sim->pointer = msg->buf[0];
			for (byte = 1; byte < msg->len; byte++)
				da_model_write(sim->regs, sim->pointer++, msg->buf[byte]);
			if (msg->len > 1) {
				apply_supply(sim);
				apply_sequence_control(sim, control);
				update(sim);
			}
		}
	}
	spin_unlock_irqrestore(&sim->lock, flags);
	return count;
}

static u32 da_sim_functionality(struct i2c_adapter *adapter)
{
	return I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL;
}

static const struct i2c_algorithm da_sim_algorithm = {
	.master_xfer = da_sim_xfer,
	.functionality = da_sim_functionality,
};

static int fresh_chip_set(const char *value, const struct kernel_param *kp)
{
	unsigned long flags;

	if (!the_sim)
		return -ENODEV;
	spin_lock_irqsave(&the_sim->lock, flags);
	power_on(the_sim);
	spin_unlock_irqrestore(&the_sim->lock, flags);
	return 0;
}

static int supply_mv_set(const char *value, const struct kernel_param *kp)
{
	unsigned long flags;
	int error = param_set_int(value, kp);

	if (error || !the_sim)
		return error;
	spin_lock_irqsave(&the_sim->lock, flags);
	apply_supply(the_sim);
	update(the_sim);
	spin_unlock_irqrestore(&the_sim->lock, flags);
	return 0;
}

static const struct kernel_param_ops supply_mv_ops = { .set = supply_mv_set, .get = param_get_int };
module_param_cb(supply_mv, &supply_mv_ops, &supply_mv, 0644);

static const struct kernel_param_ops fresh_chip_ops = { .set = fresh_chip_set };
module_param_cb(fresh_chip, &fresh_chip_ops, NULL, 0200);

static int registers_get(char *buffer, const struct kernel_param *kp)
{
	unsigned long flags;
	int index, length = 0;

	if (!the_sim)
		return -ENODEV;
	spin_lock_irqsave(&the_sim->lock, flags);
	for (index = 0; index < 0xE8; index++)
		length += scnprintf(buffer + length, PAGE_SIZE - length, "%02x%s", the_sim->regs[index], index + 1 < 0xE8 ? " " : "\n");
	spin_unlock_irqrestore(&the_sim->lock, flags);
	return length;
}

/* The last sequence played from memory: "microseconds:permille" level changes, and where it was stopped. */
static int sequence_timeline_get(char *buffer, const struct kernel_param *kp)
{
	unsigned long flags;
	int index, length = 0;

	if (!the_sim)
		return -ENODEV;
	spin_lock_irqsave(&the_sim->lock, flags);
	for (index = 0; index < the_sim->timeline_count; index++)
		length += scnprintf(buffer + length, PAGE_SIZE - length, "%ld:%d ", the_sim->timeline_us[index],
				    the_sim->timeline_permille[index]);
	if (the_sim->stopped_us >= 0 && !the_sim->sequence_end && the_sim->timeline_count &&
	    the_sim->stopped_us < the_sim->timeline_us[the_sim->timeline_count - 1])
		length += scnprintf(buffer + length, PAGE_SIZE - length, "stopped:%ld", the_sim->stopped_us);
	length += scnprintf(buffer + length, PAGE_SIZE - length, "\n");
	spin_unlock_irqrestore(&the_sim->lock, flags);
	return length;
}

static const struct kernel_param_ops sequence_timeline_ops = { .get = sequence_timeline_get };
module_param_cb(sequence_timeline, &sequence_timeline_ops, NULL, 0444);

static const struct kernel_param_ops registers_ops = { .get = registers_get };
module_param_cb(registers, &registers_ops, NULL, 0444);

/* What a device tree (dlg,da7280) would give for SparkFun's LRA: 2.106 V, 2.26 V, 165.4 mA, 13.8 ohm, 170 Hz. */
static const struct property_entry da7280_properties[] = {
	PROPERTY_ENTRY_STRING("dlg,actuator-type", "LRA"),
	PROPERTY_ENTRY_U32("dlg,nom-microvolt", 2106000),
	PROPERTY_ENTRY_U32("dlg,abs-max-microvolt", 2260000),
	PROPERTY_ENTRY_U32("dlg,imax-microamp", 165400),
	PROPERTY_ENTRY_U32("dlg,impd-micro-ohms", 13800000),
	PROPERTY_ENTRY_U32("dlg,resonant-freq-hz", 170),
	{ }
};

static const struct software_node da7280_node = {
	.name = "da7280-sim",
	.properties = da7280_properties,
};

/* The chip's nIRQ, which nothing raises: da7280's probe refuses a client without an interrupt. */
static int make_irq(void)
{
	int irq = irq_alloc_desc(NUMA_NO_NODE);

	if (irq < 0)
		return irq;
	irq_set_chip_and_handler(irq, &dummy_irq_chip, handle_simple_irq);
	irq_clear_status_flags(irq, IRQ_NOREQUEST | IRQ_NOPROBE);
	return irq;
}

static int attach_da7280_set(const char *value, const struct kernel_param *kp)
{
	struct i2c_board_info info = {
		I2C_BOARD_INFO("da7280", DA_ADDRESS),
		.swnode = &da7280_node,
	};
	struct i2c_client *client;

	if (!the_sim)
		return -ENODEV;
	if (value[0] == '1' && !da7280_client) {
		if (client_irq <= 0)
			client_irq = make_irq();
		if (client_irq < 0)
			return client_irq;
		info.irq = client_irq;
		client = i2c_new_client_device(&the_sim->adapter, &info);
		if (IS_ERR(client))
			return PTR_ERR(client);
		da7280_client = client;
	} else if (value[0] == '0' && da7280_client) {
		i2c_unregister_device(da7280_client);
		da7280_client = NULL;
	}
	return 0;
}

static const struct kernel_param_ops attach_da7280_ops = { .set = attach_da7280_set };
module_param_cb(attach_da7280, &attach_da7280_ops, NULL, 0200);

static struct i2c_adapter *dt_adapter;

/* Deletes the device tree's adapter (its clients go with it); i2c_del_adapter waits for its release. */
static void remove_device_tree_bus(void)
{
	struct device_node *node = dt_adapter->dev.of_node;

	i2c_del_adapter(dt_adapter);
	of_node_put(node);
	kfree(dt_adapter);
	dt_adapter = NULL;
}

static int device_tree_bus_set(const char *value, const struct kernel_param *kp)
{
	struct device_node *node;
	int error;

	if (!the_sim)
		return -ENODEV;
	if (value[0] == '1' && !dt_adapter) {
		node = of_find_compatible_node(NULL, NULL, "swift-haptics,da7280-sim-bus");
		if (!node)
			return -ENODEV;
		dt_adapter = kzalloc(sizeof(*dt_adapter), GFP_KERNEL);
		if (!dt_adapter) {
			of_node_put(node);
			return -ENOMEM;
		}
		dt_adapter->owner = THIS_MODULE;
		dt_adapter->algo = &da_sim_algorithm;
		dt_adapter->dev.parent = &sim_device->dev;
		dt_adapter->dev.of_node = node;
		strscpy(dt_adapter->name, "da7280-sim-dt", sizeof(dt_adapter->name));
		i2c_set_adapdata(dt_adapter, the_sim);
		error = i2c_add_adapter(dt_adapter);
		if (error) {
			of_node_put(node);
			kfree(dt_adapter);
			dt_adapter = NULL;
			return error;
		}
	} else if (value[0] == '0' && dt_adapter) {
		remove_device_tree_bus();
	}
	return 0;
}

static const struct kernel_param_ops device_tree_bus_ops = { .set = device_tree_bus_set };
module_param_cb(device_tree_bus, &device_tree_bus_ops, NULL, 0200);

static int __init da_sim_init(void)
{
	struct da_sim *sim;
	int error;

	sim_device = platform_device_register_simple("i2c-da7280-sim", -1, NULL, 0);
	if (IS_ERR(sim_device))
		return PTR_ERR(sim_device);
	sim = devm_kzalloc(&sim_device->dev, sizeof(*sim), GFP_KERNEL);
	if (!sim) {
		platform_device_unregister(sim_device);
		return -ENOMEM;
	}
	spin_lock_init(&sim->lock);
	power_on(sim);
	sim->adapter.owner = THIS_MODULE;
	sim->adapter.algo = &da_sim_algorithm;
	sim->adapter.dev.parent = &sim_device->dev;
	strscpy(sim->adapter.name, "da7280-sim", sizeof(sim->adapter.name));
	i2c_set_adapdata(&sim->adapter, sim);
	platform_set_drvdata(sim_device, sim);
	error = i2c_add_adapter(&sim->adapter);
	if (error) {
		platform_device_unregister(sim_device);
		return error;
	}
	the_sim = sim;
	return 0;
}

static void __exit da_sim_exit(void)
{
	struct da_sim *sim = platform_get_drvdata(sim_device);

	if (dt_adapter)
		remove_device_tree_bus();
	if (da7280_client)
		i2c_unregister_device(da7280_client);
	if (client_irq > 0)
		irq_free_desc(client_irq);
	the_sim = NULL;
	i2c_del_adapter(&sim->adapter);
	platform_device_unregister(sim_device);
}

module_init(da_sim_init);
module_exit(da_sim_exit);
MODULE_DESCRIPTION("I2C adapter with an emulated DA7280 at 0x4A (swift-haptics test fixture)");
MODULE_LICENSE("GPL");
