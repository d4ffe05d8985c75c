/* Guest memory for the poller (ctrl/dma.c): RAM only, PRP copies, MDTS. */
#ifndef HW_FEMU_CTRL_DMA_H
#define HW_FEMU_CTRL_DMA_H

#include "femu.h"

uint16_t femu_dma_read(FemuCtrl *n, uint64_t addr, void *buf, uint64_t len);
uint16_t femu_dma_write(FemuCtrl *n, uint64_t addr, const void *buf, uint64_t len);
bool femu_dma_ram(FemuCtrl *n, uint64_t addr, uint64_t len, bool write);
typedef enum { FEMU_TO_GUEST, FEMU_FROM_GUEST } FemuDmaDir;
/* Copy between buf and the command's PRPs (admin data, DSM ranges, I/O data). */
uint16_t femu_dma_prp(FemuCtrl *n, const NvmeCmd *cmd, void *buf, uint64_t len,
                      uint64_t max_len, FemuDmaDir dir);
/* The first len bytes of a buf_len-byte buffer: the PRPs are read for buf_len. */
uint16_t femu_dma_prp_part(FemuCtrl *n, const NvmeCmd *cmd, void *buf, uint64_t len,
                           uint64_t buf_len, uint64_t max_len, FemuDmaDir dir);
/* The checks femu_dma_prp makes (MDTS, PRPs, guest RAM), with no data moved. */
uint16_t femu_dma_prp_check(FemuCtrl *n, const NvmeCmd *cmd, uint64_t len,
                            uint64_t max_len, FemuDmaDir dir);
uint64_t femu_max_transfer(FemuCtrl *n);       /* MDTS in bytes (UINT64_MAX: none) */

#endif
