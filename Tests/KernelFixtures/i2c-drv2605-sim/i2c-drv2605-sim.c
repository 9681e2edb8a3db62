// SPDX-License-Identifier: GPL-2.0
/*
 * A test fixture for swift-haptics: an I2C adapter with an emulated TI DRV2605L at 0x5A.
 *
 * It lets the project's hardware-in-loop suite, and drivers written elsewhere, run against the
 * Linux kernel's own I2C stack (i2c-dev, I2C_RDWR, I2C_SLAVE, errno values) inside a VM. Every
 * fact about the chip (reset values, read-only registers, STATUS bits cleared on read, timings,
 * effect lengths, calibration results) comes from drv2605-model.h, generated from the project's
 * chip description (Sources/DRV2605Simulator/ChipModel.swift) by `drv2605-model header`; the
 * project's simulator reads the same description, and `drv2605-model check` compares the two.
 *
 * Parameters (/sys/module/i2c_drv2605_sim/parameters):
 *   actuator         0 a 175 Hz LRA, 1 open (nothing connected), 2 shorted
 *   supply_mv        VDD in millivolts (VBAT's reading; OTP burns only at 4.0-4.4 V)
 *   fresh_chip       writing 1 puts a new chip on the board: power-on values, no latched flags, no OTP
 *   standby_writes_ignored  1: writes other than MODE are ignored in standby (default: the model's)
 *   effect_percent   ROM effect lengths as a percentage of the model's estimates (default 100)
 *   rtp_level        read-only: the last RTP value driven in real-time playback mode
 *   rtp_writes       read-only: how many RTP values were driven
 *   rtp_peak         read-only: the largest RTP value driven since the last fresh_chip
 *   drive_onsets     read-only: CLOCK_MONOTONIC nanoseconds of each drive onset (a GO that
 *                    starts a sequence, an RTP value rising from 0), the last 64; write to clear
 *   drive_timeline   read-only: "NS PERMILLE" for each change of the real-time drive: RTP_INPUT
 *                    read as the chip reads it (DATA_FORMAT_RTP, BIDIR_INPUT, the loop), in
 *                    thousandths of full scale, while the chip is out of standby in real-time
 *                    playback mode, else 0; ns on CLOCK_MONOTONIC, the last 512; write to clear
 *   registers        read-only: registers 0x00-0x22 in hex, brought up to now (reading it clears nothing)
 *   attach_drv260x   writing 1 instantiates the kernel's drv260x driver on the chip (an I2C client
 *                    "drv2605l" with the device properties its probe needs: LRA mode, LRA library,
 *                    2.0 V rated, 2.5 V overdrive); writing 0 removes it
 *   device_tree_bus  writing 1 adds a second adapter to the same chip, bound to the device tree node
 *                    compatible "swift-haptics,drv2605-sim-bus" (Tests/KernelFixtures/device-tree/
 *                    haptics-overlay.dts): the I2C core makes the chips that node declares, with
 *                    their properties, as it does for a Pi's I2C controller; ENODEV on a machine
 *                    without that node. Writing 0 removes it.
 */
#include <linux/i2c.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "drv2605-model.h"

#define DRV_ADDRESS 0x5A
#define REG_STATUS 0x00
#define REG_MODE 0x01
#define REG_RTP 0x02
#define REG_SLOTS 0x04
#define REG_GO 0x0C
#define REG_RATED 0x16
#define REG_CAL_COMP 0x18
#define REG_CAL_BEMF 0x19
#define REG_FEEDBACK 0x1A
#define REG_CONTROL3 0x1D
#define REG_CONTROL4 0x1E
#define REG_CONTROL5 0x1F
#define REG_OL_PERIOD 0x20
#define REG_VBAT 0x21
#define REG_LRA_PERIOD 0x22

#define MODE_STANDBY 0x40
#define MODE_RESET 0x80
#define STATUS_DIAG_RESULT 0x08
#define CONTROL3_LRA_OPEN_LOOP 0x01
#define CONTROL4_OTP_STATUS 0x04
#define CONTROL4_OTP_PROGRAM 0x01

enum activity { IDLE, SEQUENCE, DIAGNOSTICS, CALIBRATION };

struct drv_sim {
	struct i2c_adapter adapter;
	spinlock_t lock;
	u8 regs[DRV_MODEL_REGISTER_COUNT];
	u8 pointer;
	bool otp_programmed;
	u8 otp[DRV_MODEL_OTP_LAST - DRV_MODEL_OTP_FIRST + 1];
	enum activity activity;
	unsigned long go_until;    /* jiffies when the activity ends */
	u64 go_end_ns;             /* CLOCK_MONOTONIC ns when a playing sequence ends */
	unsigned long reset_until; /* jiffies when DEV_RESET completes; 0 = none */
};

static struct platform_device *sim_device;
static struct drv_sim *the_sim;
static struct i2c_client *drv260x_client;

static int actuator;
module_param(actuator, int, 0644);
MODULE_PARM_DESC(actuator, "0 a 175 Hz LRA, 1 open, 2 shorted");
static int supply_mv = DRV_MODEL_SUPPLY_MV;
module_param(supply_mv, int, 0644);
MODULE_PARM_DESC(supply_mv, "VDD in millivolts");
static int standby_writes_ignored = DRV_MODEL_IGNORES_WRITES_IN_STANDBY;
module_param(standby_writes_ignored, int, 0644);
MODULE_PARM_DESC(standby_writes_ignored, "1: writes other than MODE are ignored in standby (the model's option)");
static int effect_percent = 100;
module_param(effect_percent, int, 0644);
MODULE_PARM_DESC(effect_percent, "ROM effect lengths as a percentage of the model's estimates");
static int part = -1;
module_param(part, int, 0644);
MODULE_PARM_DESC(part, "DEVICE_ID in STATUS[7:5] from the next power-on or reset: 3 DRV2605, 4 DRV2604, 6 DRV2604L, 7 DRV2605L (-1: the model's)");
static int rtp_level = -1;
module_param(rtp_level, int, 0444);
static int rtp_writes;
module_param(rtp_writes, int, 0444);
static int rtp_peak;
module_param(rtp_peak, int, 0444);
static int calibrations;
module_param(calibrations, int, 0444);
MODULE_PARM_DESC(calibrations, "auto-calibrations started (GO in MODE 0x07) since the module was loaded");
static unsigned long standby_since;
module_param(standby_since, ulong, 0444);
MODULE_PARM_DESC(standby_since, "CLOCK_MONOTONIC ns of the MODE write that put the chip in standby; 0 while awake");
static int monotonic_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%llu\n", (unsigned long long)ktime_get_ns());
}
static const struct kernel_param_ops monotonic_ops = { .get = monotonic_get };
module_param_cb(monotonic, &monotonic_ops, NULL, 0444);
MODULE_PARM_DESC(monotonic, "CLOCK_MONOTONIC ns now: the clock standby_since is on, for a shell to date an event by");

/* When the actuator starts to be driven, on the clock user space dates its sounds by. */
#define ONSET_SLOTS 64
static u64 onsets[ONSET_SLOTS];
static unsigned int onset_count;

static void note_onset(void)
{
	onsets[onset_count % ONSET_SLOTS] = ktime_get_ns();
	onset_count++;
}

static int drive_onsets_get(char *buffer, const struct kernel_param *kp)
{
	unsigned int index, first = onset_count > ONSET_SLOTS ? onset_count - ONSET_SLOTS : 0;
	int length = 0;

	for (index = first; index < onset_count && length < PAGE_SIZE - 24; index++)
		length += scnprintf(buffer + length, PAGE_SIZE - length, "%llu\n", onsets[index % ONSET_SLOTS]);
	return length;
}

static int drive_onsets_set(const char *value, const struct kernel_param *kp)
{
	onset_count = 0;
	return 0;
}

static const struct kernel_param_ops drive_onsets_ops = { .get = drive_onsets_get, .set = drive_onsets_set };
module_param_cb(drive_onsets, &drive_onsets_ops, NULL, 0644);
MODULE_PARM_DESC(drive_onsets, "CLOCK_MONOTONIC ns of each drive onset (GO of a sequence, RTP rising from 0); write to clear");

/* The real-time drive as it changes (drive-timeline.h). */
#include "drive-timeline.h"

/*
 * Each sequence's GO: when it was set, and when it cleared, by the chip at the sequence's end
 * ("chip", dated at that end, however late the next access found it) or by a write ("stopped").
 */
#define GO_SLOTS 64
static u64 go_ns[GO_SLOTS];
static const char *go_event[GO_SLOTS];
static unsigned int go_count;

static void note_go(u64 ns, const char *event)
{
	go_ns[go_count % GO_SLOTS] = ns;
	go_event[go_count % GO_SLOTS] = event;
	go_count++;
}

static int go_timeline_get(char *buffer, const struct kernel_param *kp)
{
	unsigned int index, first = go_count > GO_SLOTS ? go_count - GO_SLOTS : 0;
	int length = 0;

	for (index = first; index < go_count && length < PAGE_SIZE - 32; index++)
		length += scnprintf(buffer + length, PAGE_SIZE - length, "%llu %s\n",
				    go_ns[index % GO_SLOTS], go_event[index % GO_SLOTS]);
	return length;
}

static int go_timeline_set(const char *value, const struct kernel_param *kp)
{
	go_count = 0;
	return 0;
}

static const struct kernel_param_ops go_timeline_ops = { .get = go_timeline_get, .set = go_timeline_set };
module_param_cb(go_timeline, &go_timeline_ops, NULL, 0644);
MODULE_PARM_DESC(go_timeline, "NS set|chip|stopped for each sequence's GO: set, cleared by the chip at its end, cleared by a write; write to clear");

static bool actuator_moves(void) { return actuator == 0; }
static bool is_lra_mode(struct drv_sim *sim) { return sim->regs[REG_FEEDBACK] & 0x80; }
static bool in_standby(struct drv_sim *sim) { return sim->regs[REG_MODE] & MODE_STANDBY; }
static unsigned int mode_of(struct drv_sim *sim) { return sim->regs[REG_MODE] & 0x07; }

/* The register file as a power-on or DEV_RESET leaves it, with the part's DEVICE_ID. */
static void load_reset_values(struct drv_sim *sim)
{
	memcpy(sim->regs, drv_model_reset_values, sizeof(sim->regs));
	if (part >= 0)
		sim->regs[REG_STATUS] = (sim->regs[REG_STATUS] & 0x1F) | ((part & 0x07) << 5);
}

static void power_on(struct drv_sim *sim)
{
	load_reset_values(sim);
	sim->pointer = 0;
	sim->otp_programmed = false;
	sim->activity = IDLE;
	sim->go_until = 0;
	sim->reset_until = 0;
}

static int fresh_chip_set(const char *value, const struct kernel_param *kp)
{
	unsigned long flags;

	if (!the_sim)
		return -ENODEV;
	spin_lock_irqsave(&the_sim->lock, flags);
	power_on(the_sim);
	rtp_level = -1;
	rtp_peak = 0;
	spin_unlock_irqrestore(&the_sim->lock, flags);
	return 0;
}

static const struct kernel_param_ops fresh_chip_ops = { .set = fresh_chip_set };
module_param_cb(fresh_chip, &fresh_chip_ops, NULL, 0200);
MODULE_PARM_DESC(fresh_chip, "write 1: a new chip (power-on values, no latched flags, no OTP)");

static void advance(struct drv_sim *sim);

static int registers_get(char *buffer, const struct kernel_param *kp)
{
	unsigned long flags;
	int index, length = 0;

	if (!the_sim)
		return -ENODEV;
	spin_lock_irqsave(&the_sim->lock, flags);
	advance(the_sim);
	for (index = 0; index < DRV_MODEL_REGISTER_COUNT; index++)
		length += scnprintf(buffer + length, PAGE_SIZE - length, "%02x%s", the_sim->regs[index],
				    index + 1 < DRV_MODEL_REGISTER_COUNT ? " " : "\n");
	spin_unlock_irqrestore(&the_sim->lock, flags);
	return length;
}

static const struct kernel_param_ops registers_ops = { .get = registers_get };
module_param_cb(registers, &registers_ops, NULL, 0444);

/* What the device tree binding (ti,drv260x) would give: values from dt-bindings/input/ti-drv260x.h. */
static const struct property_entry drv260x_properties[] = {
	PROPERTY_ENTRY_U32("mode", 0x00),         /* DRV260X_LRA_MODE: calibrate at probe */
	PROPERTY_ENTRY_U32("library-sel", 0x06),  /* DRV260X_LIB_LRA */
	PROPERTY_ENTRY_U32("vib-rated-mv", 2000),
	PROPERTY_ENTRY_U32("vib-overdrive-mv", 2500),
	{ }
};

static const struct software_node drv260x_node = {
	.name = "drv2605l-sim",
	.properties = drv260x_properties,
};

static int attach_drv260x_set(const char *value, const struct kernel_param *kp)
{
	struct i2c_board_info info = {
		I2C_BOARD_INFO("drv2605l", DRV_ADDRESS),
		.swnode = &drv260x_node,
	};
	struct i2c_client *client;

	if (!the_sim)
		return -ENODEV;
	if (value[0] == '1' && !drv260x_client) {
		client = i2c_new_client_device(&the_sim->adapter, &info);
		if (IS_ERR(client))
			return PTR_ERR(client);
		drv260x_client = client;
	} else if (value[0] == '0' && drv260x_client) {
		i2c_unregister_device(drv260x_client);
		drv260x_client = NULL;
	}
	return 0;
}

static const struct kernel_param_ops attach_drv260x_ops = { .set = attach_drv260x_set };
module_param_cb(attach_drv260x, &attach_drv260x_ops, NULL, 0200);

static const struct i2c_algorithm drv_sim_algorithm;
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
		node = of_find_compatible_node(NULL, NULL, "swift-haptics,drv2605-sim-bus");
		if (!node)
			return -ENODEV;
		dt_adapter = kzalloc(sizeof(*dt_adapter), GFP_KERNEL);
		if (!dt_adapter) {
			of_node_put(node);
			return -ENOMEM;
		}
		dt_adapter->owner = THIS_MODULE;
		dt_adapter->algo = &drv_sim_algorithm;
		dt_adapter->dev.parent = &sim_device->dev;
		dt_adapter->dev.of_node = node;
		strscpy(dt_adapter->name, "drv2605-sim-dt", sizeof(dt_adapter->name));
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

static void stop(struct drv_sim *sim)
{
	if (sim->activity == SEQUENCE)
		note_go(ktime_get_ns(), "stopped");
	sim->regs[REG_GO] = 0;
	sim->activity = IDLE;
	sim->go_until = 0;
}

/* How long the slots play: effects by the model's lengths, waits of 10 ms steps. */
static unsigned int sequence_milliseconds(struct drv_sim *sim)
{
	bool fast = sim->regs[REG_CONTROL5] & 0x10;
	unsigned int total = 0, slot;

	for (slot = REG_SLOTS; slot < REG_SLOTS + 8; slot++) {
		u8 value = sim->regs[slot];
		unsigned int length;

		if (!value)
			break;
		if (value & 0x80) {
			total += (value & 0x7F) * 10;
			continue;
		}
		length = drv_model_effect_ms[value] * effect_percent / 100;
		total += fast ? length / DRV_MODEL_ONE_MS_INTERVAL_SPEED_UP : length;
	}
	return total;
}

static void start(struct drv_sim *sim, enum activity activity, unsigned int milliseconds)
{
	sim->regs[REG_GO] = 1;
	sim->activity = activity;
	sim->go_until = jiffies + msecs_to_jiffies(milliseconds) + 1;
}

static void go(struct drv_sim *sim)
{
	switch (drv_model_go_action[mode_of(sim)]) {
	case DRV_MODEL_GO_SEQUENCE:
		sim->regs[REG_VBAT] = DRV_MODEL_SUPPLY_READING(supply_mv);
		if (actuator == 2) {
			sim->regs[REG_STATUS] |= 0x01; /* OC_DETECT; the output stops */
			stop(sim);
			return;
		}
		if (actuator_moves() && is_lra_mode(sim) &&
		    !(DRV_MODEL_LRA_PERIOD_ONLY_IN_CLOSED_LOOP && (sim->regs[REG_CONTROL3] & CONTROL3_LRA_OPEN_LOOP)))
			sim->regs[REG_LRA_PERIOD] = DRV_MODEL_LRA_PERIOD;
		start(sim, SEQUENCE, sequence_milliseconds(sim));
		sim->go_end_ns = ktime_get_ns() + (u64)sequence_milliseconds(sim) * NSEC_PER_MSEC;
		note_go(ktime_get_ns(), "set");
		note_onset();
		break;
	case DRV_MODEL_GO_DIAGNOSTICS:
		start(sim, DIAGNOSTICS, DRV_MODEL_DIAGNOSTICS_MS);
		break;
	case DRV_MODEL_GO_CALIBRATION:
		calibrations++;
		start(sim, CALIBRATION, drv_model_calibration_ms[(sim->regs[REG_CONTROL4] >> 4) & 3]);
		break;
	default:
		break; /* DRV_MODEL_GO_NOTHING */
	}
}

static void finish(struct drv_sim *sim)
{
	enum activity activity = sim->activity;
	u8 rated = sim->regs[REG_RATED];

	if (activity == SEQUENCE) {
		note_go(sim->go_end_ns, "chip");
		sim->activity = IDLE;
	}
	stop(sim);
	if (activity == SEQUENCE)
		return;
	sim->regs[REG_STATUS] &= ~STATUS_DIAG_RESULT;
	if (actuator == 2)
		sim->regs[REG_STATUS] |= 0x01;
	if (activity == CALIBRATION) {
		/* Converges with a moving actuator of the kind FEEDBACK names: the emulated one is an LRA. */
		if (actuator_moves() && is_lra_mode(sim)) {
			sim->regs[REG_CAL_COMP] = DRV_MODEL_CAL_COMPENSATION(rated);
			sim->regs[REG_CAL_BEMF] = DRV_MODEL_CAL_BACK_EMF(rated);
			sim->regs[REG_FEEDBACK] = (sim->regs[REG_FEEDBACK] & ~0x03) | DRV_MODEL_CAL_GAIN(1);
			sim->regs[REG_OL_PERIOD] = DRV_MODEL_LRA_PERIOD;
			sim->regs[REG_LRA_PERIOD] = DRV_MODEL_LRA_PERIOD;
		} else {
			sim->regs[REG_STATUS] |= STATUS_DIAG_RESULT;
		}
	} else if (!actuator_moves()) {
		sim->regs[REG_STATUS] |= STATUS_DIAG_RESULT;
	}
}

/* Brings timed state up to now. Called with the lock held. */
static void advance(struct drv_sim *sim)
{
	if (sim->reset_until && time_after_eq(jiffies, sim->reset_until)) {
		u8 kept = sim->regs[REG_STATUS] & DRV_MODEL_STATUS_KEPT_BY_RESET;

		load_reset_values(sim);
		sim->regs[REG_STATUS] |= kept;
		if (sim->otp_programmed) {
			sim->regs[REG_CONTROL4] |= CONTROL4_OTP_STATUS;
			memcpy(&sim->regs[DRV_MODEL_OTP_FIRST], sim->otp, sizeof(sim->otp));
		}
		sim->reset_until = 0;
		stop(sim);
	}
	if (sim->activity != IDLE && time_after_eq(jiffies, sim->go_until))
		finish(sim);
}

/*
 * RTP_INPUT as the chip reads it, in thousandths of full scale (the project's chip model's
 * realTimeDrive, written again here so the two can be compared): closed loop without BIDIR_INPUT
 * spans 0...full over the whole byte; otherwise the byte is signed around zero (offset by 128 when
 * unsigned), negative only in open loop.
 */
static int real_time_permille(struct drv_sim *sim)
{
	u8 input = sim->regs[REG_RTP];
	bool is_unsigned = sim->regs[REG_CONTROL3] & 0x08;
	bool lra = sim->regs[REG_FEEDBACK] & 0x80;
	bool open_loop = sim->regs[REG_CONTROL3] & (lra ? 0x01 : 0x20);
	bool bidirectional = sim->regs[0x1C] & 0x80;
	int value;

	if (!open_loop && !bidirectional)
		return is_unsigned ? input * 1000 / 255 : ((int)(s8)input + 128) * 1000 / 255;
	value = is_unsigned ? ((int)input - 128) * 1000 / 127 : (int)(s8)input * 1000 / 127;
	if (value > 1000)
		value = 1000;
	if (value < (open_loop ? -1000 : 0))
		value = open_loop ? -1000 : 0;
	return value;
}

/* Records the real-time drive when a write changed it. */
static void note_drive(struct drv_sim *sim)
{
	int level = (mode_of(sim) == 5 && !in_standby(sim)) ? real_time_permille(sim) : 0;

	drive_timeline_note(level);
}

static void drive_real_time(struct drv_sim *sim)
{
	if (mode_of(sim) != 5 || in_standby(sim) || actuator == 1)
		return;
	sim->regs[REG_VBAT] = DRV_MODEL_SUPPLY_READING(supply_mv);
	if (rtp_level <= 0 && sim->regs[REG_RTP] != 0)
		note_onset();
	rtp_level = sim->regs[REG_RTP];
	rtp_writes++;
	if (rtp_level > rtp_peak)
		rtp_peak = rtp_level;
}

static bool read_only(u8 reg)
{
	unsigned int index;

	for (index = 0; index < ARRAY_SIZE(drv_model_read_only); index++)
		if (drv_model_read_only[index] == reg)
			return true;
	return false;
}

static void write_register(struct drv_sim *sim, u8 reg, u8 value)
{
	if (reg >= DRV_MODEL_REGISTER_COUNT || read_only(reg))
		return;
	if (standby_writes_ignored && reg != REG_MODE && in_standby(sim))
		return;
	switch (reg) {
	case REG_MODE:
		if (value & MODE_RESET) {
			stop(sim);
			sim->regs[REG_MODE] = value;
			sim->reset_until = jiffies + msecs_to_jiffies(DRV_MODEL_RESET_MS) + 1;
			return;
		}
		if (DRV_MODEL_MODE_CHANGE_STOPS_PLAYBACK && sim->regs[REG_GO] &&
		    ((value & MODE_STANDBY) || (value & 0x07) != mode_of(sim)))
			stop(sim);
		if ((value & MODE_STANDBY) && !(sim->regs[REG_MODE] & MODE_STANDBY))
			standby_since = (unsigned long)ktime_get_ns();
		else if (!(value & MODE_STANDBY))
			standby_since = 0;
		sim->regs[REG_MODE] = value;
		drive_real_time(sim);
		return;
	case REG_RTP:
		sim->regs[REG_RTP] = value;
		drive_real_time(sim);
		return;
	case REG_GO:
		if ((value & 1) && !sim->regs[REG_GO])
			go(sim);
		else if (!(value & 1) && sim->regs[REG_GO])
			stop(sim);
		return;
	case REG_CONTROL4:
		/* OTP_STATUS is the chip's to say; OTP_PROGRAM burns and reads back as 0. */
		if ((value & CONTROL4_OTP_PROGRAM) && !sim->otp_programmed &&
		    supply_mv >= DRV_MODEL_OTP_MIN_MV && supply_mv <= DRV_MODEL_OTP_MAX_MV) {
			sim->otp_programmed = true;
			memcpy(sim->otp, &sim->regs[DRV_MODEL_OTP_FIRST], sizeof(sim->otp));
		}
		sim->regs[REG_CONTROL4] = (value & ~(CONTROL4_OTP_PROGRAM | CONTROL4_OTP_STATUS)) |
					  (sim->otp_programmed ? CONTROL4_OTP_STATUS : 0);
		return;
	default:
		sim->regs[reg] = value;
	}
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

				msg->buf[byte] = reg < DRV_MODEL_REGISTER_COUNT ? sim->regs[reg] : 0;
				if (reg == REG_STATUS)
					sim->regs[REG_STATUS] &= ~DRV_MODEL_STATUS_CLEARED_ON_READ;
			}
		} else if (msg->len > 0) {
			sim->pointer = msg->buf[0];
			for (byte = 1; byte < msg->len; byte++)
				write_register(sim, sim->pointer++, msg->buf[byte]);
			note_drive(sim);
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
	power_on(sim);
	sim->adapter.owner = THIS_MODULE;
	sim->adapter.algo = &drv_sim_algorithm;
	sim->adapter.dev.parent = &sim_device->dev;
	strscpy(sim->adapter.name, "drv2605-sim", sizeof(sim->adapter.name));
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

static void __exit drv_sim_exit(void)
{
	struct drv_sim *sim = platform_get_drvdata(sim_device);

	if (dt_adapter)
		remove_device_tree_bus();
	if (drv260x_client)
		i2c_unregister_device(drv260x_client);
	the_sim = NULL;
	i2c_del_adapter(&sim->adapter);
	platform_device_unregister(sim_device);
}

module_init(drv_sim_init);
module_exit(drv_sim_exit);
MODULE_DESCRIPTION("I2C adapter with an emulated DRV2605L at 0x5A (swift-haptics test fixture)");
MODULE_LICENSE("GPL");
