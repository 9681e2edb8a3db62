/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The drive as it changes, for comparing two drivers' timelines of one client's pattern: the
 * module parameter drive_timeline, "NS PERMILLE" on the monotonic clock for each change (the last
 * DRIVE_TIMELINE_SLOTS of them; writing anything clears it). Each fixture includes it once and
 * calls drive_timeline_note() with its drive, under its own lock, whenever a write may change it.
 */
#ifndef DRIVE_TIMELINE_H
#define DRIVE_TIMELINE_H

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>

#define DRIVE_TIMELINE_SLOTS 512

static u64 drive_timeline_ns[DRIVE_TIMELINE_SLOTS];
static int drive_timeline_level[DRIVE_TIMELINE_SLOTS];
static unsigned int drive_timeline_count;
static int drive_timeline_last = -1;

/* Records `level` (thousandths of the fixture's full drive) when it differs from the last. */
static void drive_timeline_note(int level)
{
	if (level == drive_timeline_last)
		return;
	drive_timeline_last = level;
	drive_timeline_ns[drive_timeline_count % DRIVE_TIMELINE_SLOTS] = ktime_get_ns();
	drive_timeline_level[drive_timeline_count % DRIVE_TIMELINE_SLOTS] = level;
	drive_timeline_count++;
}

static int drive_timeline_get(char *buffer, const struct kernel_param *kp)
{
	unsigned int index, first = drive_timeline_count > DRIVE_TIMELINE_SLOTS ? drive_timeline_count - DRIVE_TIMELINE_SLOTS : 0;
	int length = 0;

	for (index = first; index < drive_timeline_count && length < PAGE_SIZE - 32; index++)
		length += scnprintf(buffer + length, PAGE_SIZE - length, "%llu %d\n",
				    drive_timeline_ns[index % DRIVE_TIMELINE_SLOTS],
				    drive_timeline_level[index % DRIVE_TIMELINE_SLOTS]);
	return length;
}

static int drive_timeline_set(const char *value, const struct kernel_param *kp)
{
	drive_timeline_count = 0;
	drive_timeline_last = -1;
	return 0;
}

static const struct kernel_param_ops drive_timeline_ops = { .get = drive_timeline_get, .set = drive_timeline_set };
module_param_cb(drive_timeline, &drive_timeline_ops, NULL, 0644);
MODULE_PARM_DESC(drive_timeline, "NS PERMILLE of each change of the drive; write to clear");

#endif
