// SPDX-License-Identifier: GPL-2.0
/*
 * pci_enable_pcie_error_reporting() exists (removed in 6.5, when the PCI
 * core started enabling AER reporting for every device itself).
 */
#include <linux/pci.h>
#include <linux/aer.h>

int ibstack_probe(struct pci_dev *pdev);
int ibstack_probe(struct pci_dev *pdev)
{
	return pci_enable_pcie_error_reporting(pdev);
}
