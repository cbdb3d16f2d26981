// SPDX-License-Identifier: GPL-2.0
/*
 * cpuidle driver for virtual machines: poll, then halt.
 *
 * Copyright 2019 Red Hat, Inc. and/or its affiliates.
 *
 * Authors: Marcelo Tosatti <mtosatti@redhat.com>
 *
 * Two states: state 0 polls with TIF_POLLING_NRFLAG set for the window the
 * haltpoll governor chooses, state 1 is the architecture's own idle
 * (MWAIT or HLT on x86). Whether to load at all is the architecture's call
 * (arch_haltpoll_want()); "force" overrides it.
 */

#include <linux/cpu.h>
#include <linux/cpuidle.h>
#include <linux/cpuidle_haltpoll.h>
#include <linux/init.h>
#include <linux/module.h>

#ifdef CONFIG_X86
#include <asm/cpu_device_id.h>

/*
 * Load in every x86 guest, as the driver built in did in Linux 6.12: udev
 * loads modules by the CPU's modalias at coldplug. Where polling is not
 * wanted, haltpoll_init() refuses quietly.
 */
static const struct x86_cpu_id haltpoll_cpu_ids[] = {
	X86_MATCH_FEATURE(X86_FEATURE_HYPERVISOR, NULL),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, haltpoll_cpu_ids);
#endif

static bool force __read_mostly;
module_param(force, bool, 0444);
MODULE_PARM_DESC(force, "Load even where the architecture would not (e.g. no KVM realtime hint)");

static struct cpuidle_device __percpu *haltpoll_cpuidle_devices;
static enum cpuhp_state haltpoll_hp_state;

/*
 * call_cpuidle() has already cleared TIF_POLLING_NRFLAG and tested
 * need_resched(): any wakeup from then on comes as an IPI, which ends the
 * halt at once, so there is nothing to test again here.
 */
static __cpuidle int haltpoll_enter_halt(struct cpuidle_device *dev,
					 struct cpuidle_driver *drv, int index)
{
	/* MWAIT where the guest has it, HLT otherwise; returns with IRQs off. */
	arch_cpu_idle();
	return index;
}

static struct cpuidle_driver haltpoll_driver = {
	.name = "haltpoll",
	.governor = "haltpoll",
	.states = {
		{ /* entry 0 is the poll state, see cpuidle_poll_state_init() */ },
		{
			.enter			= haltpoll_enter_halt,
			.exit_latency		= 1,
			.target_residency	= 1,
			.power_usage		= -1,
			.name			= "haltpoll idle",
			.desc			= "default architecture idle",
		},
	},
	.safe_state_index = 0,
	.state_count = 2,
};

static int haltpoll_cpu_online(unsigned int cpu)
{
	struct cpuidle_device *dev = per_cpu_ptr(haltpoll_cpuidle_devices, cpu);

	if (dev->registered)
		return 0;

	dev->cpu = cpu;
	if (cpuidle_register_device(dev)) {
		pr_notice("haltpoll: cannot register cpuidle device for CPU%u\n",
			  cpu);
		return -EIO;
	}
	arch_haltpoll_enable(cpu);
	return 0;
}

static int haltpoll_cpu_offline(unsigned int cpu)
{
	struct cpuidle_device *dev = per_cpu_ptr(haltpoll_cpuidle_devices, cpu);

	if (!dev->registered)
		return 0;

	arch_haltpoll_disable(cpu);
	cpuidle_unregister_device(dev);
	return 0;
}

static void haltpoll_uninit(void)
{
	if (haltpoll_hp_state)
		cpuhp_remove_state(haltpoll_hp_state);
	haltpoll_hp_state = 0;
	cpuidle_unregister_driver(&haltpoll_driver);

	free_percpu(haltpoll_cpuidle_devices);
	haltpoll_cpuidle_devices = NULL;
}

/* Say why the driver stays out of the way; -ENODEV keeps modprobe quiet. */
static int haltpoll_refuse(const char *why)
{
	pr_info("haltpoll: not loading: %s\n", why);
	return -ENODEV;
}

static int __init haltpoll_init(void)
{
	struct cpuidle_driver *drv = &haltpoll_driver;
	int ret;

	if (arch_haltpoll_idle_overridden())
		return haltpoll_refuse("idle= given on the command line");
	/* Autoloaded in every guest: most do not want polling, say nothing. */
	if (!arch_haltpoll_want(force)) {
		pr_debug("haltpoll: not loading: not wanted on this platform (use force=1)\n");
		return -ENODEV;
	}

	cpuidle_poll_state_init(drv);

	ret = cpuidle_register_driver(drv);
	if (ret == -ENODEV)
		return haltpoll_refuse("cpuidle is disabled");
	if (ret < 0)
		return ret;

	haltpoll_cpuidle_devices = alloc_percpu(struct cpuidle_device);
	if (!haltpoll_cpuidle_devices) {
		cpuidle_unregister_driver(drv);
		return -ENOMEM;
	}

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "cpuidle/haltpoll:online",
				haltpoll_cpu_online, haltpoll_cpu_offline);
	if (ret < 0) {
		haltpoll_uninit();
		return ret;
	}

	haltpoll_hp_state = ret;
	return 0;
}

static void __exit haltpoll_exit(void)
{
	haltpoll_uninit();
}

module_init(haltpoll_init);
module_exit(haltpoll_exit);
MODULE_DESCRIPTION("cpuidle driver for haltpoll governor");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("Marcelo Tosatti <mtosatti@redhat.com>");
