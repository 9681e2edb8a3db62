// SPDX-License-Identifier: GPL-2.0
/*
 * A test fixture for swift-haptics: a one-line GPIO chip wired as the "enable" line of Linux's own
 * gpio-vibrator (drivers/input/misc/gpio-vibra.c, an ff-memless device that switches a motor on
 * and off), and the line's timeline, for comparing what a client's pattern does to the motor.
 *
 * Parameters (/sys/module/gpio_vibra_sim/parameters):
 *   attach            writing 1 makes the platform device "gpio-vibrator" (its driver binds and
 *                     makes the input device "gpio-vibrator"); writing 0 removes it
 *   level             read-only: the line now, 0 or 1
 *   drive_timeline    "NS PERMILLE" for each change of the line (on is 1000), on the monotonic
 *                     clock; writing anything clears it
 *
 * The line is the vibrator's only control: gpio-vibra gets "vcc" too, which a board without the
 * regulator described leaves to the regulator core's dummy supply (full constraints declared here,
 * as a device tree declares them).
 */
#include <linux/gpio/driver.h>
#include <linux/gpio/machine.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/regulator/machine.h>
#include <linux/spinlock.h>

#include "drive-timeline.h"

static DEFINE_SPINLOCK(line_lock);
static int level;
module_param(level, int, 0444);
static struct platform_device *vibrator;

static void line_set(struct gpio_chip *chip, unsigned int offset, int value)
{
	unsigned long flags;

	spin_lock_irqsave(&line_lock, flags);
	level = value ? 1 : 0;
	drive_timeline_note(level * 1000);
	spin_unlock_irqrestore(&line_lock, flags);
}

static int line_get(struct gpio_chip *chip, unsigned int offset)
{
	return level;
}

static int line_output(struct gpio_chip *chip, unsigned int offset, int value)
{
	line_set(chip, offset, value);
	return 0;
}

static int line_direction(struct gpio_chip *chip, unsigned int offset)
{
	return GPIO_LINE_DIRECTION_OUT;
}

static struct gpio_chip chip = {
	.label = "vibra-sim",
	.owner = THIS_MODULE,
	.base = -1,
	.ngpio = 1,
	.set = line_set,
	.get = line_get,
	.direction_output = line_output,
	.get_direction = line_direction,
};

static struct gpiod_lookup_table lookup = {
	.dev_id = "gpio-vibrator",
	.table = {
		GPIO_LOOKUP("vibra-sim", 0, "enable", GPIO_ACTIVE_HIGH),
		{ }
	},
};


static int attach_set(const char *value, const struct kernel_param *kp)
{
	if (value[0] == '1' && !vibrator) {
		vibrator = platform_device_register_simple("gpio-vibrator", -1, NULL, 0);
		if (IS_ERR(vibrator)) {
			int error = PTR_ERR(vibrator);

			vibrator = NULL;
			return error;
		}
	} else if (value[0] == '0' && vibrator) {
		platform_device_unregister(vibrator);
		vibrator = NULL;
	}
	return 0;
}

static const struct kernel_param_ops attach_ops = { .set = attach_set };
module_param_cb(attach, &attach_ops, NULL, 0200);

static int __init vibra_sim_init(void)
{
	int error = gpiochip_add_data(&chip, NULL);

	if (error)
		return error;
	gpiod_add_lookup_table(&lookup);
	regulator_has_full_constraints();
	return 0;
}

static void __exit vibra_sim_exit(void)
{
	if (vibrator)
		platform_device_unregister(vibrator);
	gpiod_remove_lookup_table(&lookup);
	gpiochip_remove(&chip);
}

module_init(vibra_sim_init);
module_exit(vibra_sim_exit);
MODULE_DESCRIPTION("A GPIO line for Linux's gpio-vibrator, with its timeline (swift-haptics test fixture)");
MODULE_LICENSE("GPL");
