#ifndef BTLENS_CPCAP_SHIM_H
#define BTLENS_CPCAP_SHIM_H
#include <pcap/pcap.h>
#endif
