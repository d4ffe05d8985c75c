/*
 * The PCIe link between host and device, as a pair of one-way pipes (up: device to host,
 * down: host to device), each work conserving (link_pipe.h). A
 * transfer is counted in bytes on the wire: its payload cut into TLPs of at most
 * Max_Payload_Size, each with its header and framing, and the Ack DLLP the receiver
 * returns for each on the other pipe. Time is kept in ps so that small TLPs do not round.
 * Facts (PCIe Base Specification): rates and encodings per generation; a TLP's framing
 * is 8 bytes in every generation (1.x/2.x: STP 1, sequence number 2, LCRC 4, END 1;
 * 3.0 on: the 4-byte STP token with the sequence number, LCRC 4); a DLLP is 8 bytes with
 * its framing; a memory request with a 64-bit address has a 16-byte header, a completion
 * a 12-byte one; Max_Read_Request_Size's default is 512 bytes.
 */
#ifndef FTL_FRONT_PCIE_LINK_H
#define FTL_FRONT_PCIE_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "femu_ftl/config.h"
#include "femu_ftl/ftl.h"
#include "front/link_pipe.h"

#define PCIE_TLP_FRAMING 8u     /* STP/END or STP token, sequence number, LCRC */
#define PCIE_MEM_HEADER 16u     /* memory read or write, 64-bit address (4 DW) */
#define PCIE_CPL_HEADER 12u     /* completion (3 DW) */
#define PCIE_DLLP_BYTES 8u      /* an Ack with its framing */
#define PCIE_MRRS 512u          /* Max_Read_Request_Size (the default) */

enum pcie_dir { PCIE_UP, PCIE_DOWN };

struct pcie_link {
    bool on;
    uint32_t mps;
    uint64_t ps_num, ps_den;    /* ps a byte takes on the wire = ps_num / ps_den */
    struct link_pipe pipe[2];   /* up and down */
};

/* The link cfg describes (pcie_gen 0: off, every transfer free). */
void pcie_link_init(struct pcie_link *link, const struct ftl_config *cfg);

/* ps that bytes take on one pipe (rounded up; 0 with the link off). */
uint64_t pcie_link_ps(const struct pcie_link *link, uint64_t bytes);

/* Bytes on the wire of payload bytes sent as TLPs with header bytes each (a payload of 0:
 * one TLP without data), and how many TLPs that is. */
uint64_t pcie_wire_bytes(const struct pcie_link *link, uint64_t payload, uint32_t header,
                         uint64_t *tlps);

/* Nothing starts before horizon_ps any more (the newest arrival). */
void pcie_link_prune(struct pcie_link *link, uint64_t horizon_ps);

/*
 * Send wire bytes on pipe dir no earlier than at_ps, plus acks x 8 bytes of Ack DLLPs
 * on the other pipe at the same time; both counted in ctr. Returns when the bytes have
 * arrived (ps). Off: returns at_ps.
 */
uint64_t pcie_link_send(struct pcie_link *link, struct ftl_counters *ctr, enum pcie_dir dir,
                        uint64_t at_ps, uint64_t wire, uint64_t acks);

#endif
