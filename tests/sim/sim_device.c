/* SPDX-License-Identifier: MIT */
/* Devices of the simulated driver: count, names, memory, every attribute (sim_attributes.def:
 * the values of a recent data-centre GPU), UUIDs, PCI bus ids and peer access between devices. */
#include <stdio.h>
#include <string.h>
#include "sim_internal.h"

static const struct {
    int attr;
    int value;
} attr_table[] = {
#define SIM_ATTR(number, name, value) {number, value},
#include "sim_attributes.def"
#undef SIM_ATTR
};

/* The PCI bus of device d: 1, 2, … so that every device has its own bus id. */
static int pci_bus(int device)
{
    return device + 1;
}

SIM_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= sim_n_devices)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetCount(int *count)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = sim_n_devices;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    static const char sim_name[] = "vramtrace simulated GPU";
    size_t n = (size_t)len - 1 < sizeof sim_name - 1 ? (size_t)len - 1 : sizeof sim_name - 1;
    memcpy(name, sim_name, n);
    name[n] = '\0';
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = sim_devices[dev].capacity_bytes;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof attr_table / sizeof attr_table[0]; i++) {
        if (attr_table[i].attr != (int)attrib)
            continue;
        int v = attr_table[i].value;
        if (v == SIM_ATTR_PER_DEVICE) /* PCI bus id, or the board group (one board per device) */
            v = (int)attrib == SIM_DEVICE_ATTRIBUTE_PCI_BUS_ID ? pci_bus(dev) : dev;
        *pi = v;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

/* Deprecated, still exported and still used (numba). */
SIM_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!major || !minor)
        return CUDA_ERROR_INVALID_VALUE;
    cuDeviceGetAttribute(major, (CUdevice_attribute)SIM_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         dev);
    cuDeviceGetAttribute(minor, (CUdevice_attribute)SIM_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                         dev);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetProperties(CUdevprop *prop, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!prop)
        return CUDA_ERROR_INVALID_VALUE;
    static const int attrs[] = {
        SIM_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        SIM_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
        SIM_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
        SIM_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
        SIM_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
        SIM_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
        SIM_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,
        SIM_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
        SIM_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY,
        SIM_DEVICE_ATTRIBUTE_WARP_SIZE,
        SIM_DEVICE_ATTRIBUTE_MAX_PITCH,
        SIM_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
        SIM_DEVICE_ATTRIBUTE_CLOCK_RATE,
        SIM_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
    };
    int *fields[] = {
        &prop->maxThreadsPerBlock, &prop->maxThreadsDim[0],  &prop->maxThreadsDim[1],
        &prop->maxThreadsDim[2],   &prop->maxGridSize[0],    &prop->maxGridSize[1],
        &prop->maxGridSize[2],     &prop->sharedMemPerBlock, &prop->totalConstantMemory,
        &prop->SIMDWidth,          &prop->memPitch,          &prop->regsPerBlock,
        &prop->clockRate,          &prop->textureAlign};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        cuDeviceGetAttribute(fields[i], (CUdevice_attribute)attrs[i], dev);
    return CUDA_SUCCESS;
}

/* A fixed UUID per device: "vtsim" and the ordinal, so that two devices never share one. */
SIM_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    static const char tag[] = "vtsim-uuid-dev";
    memset(uuid->bytes, 0, sizeof uuid->bytes);
    memcpy(uuid->bytes, tag, sizeof tag - 1);
    uuid->bytes[15] = (char)dev;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid_v2(uuid, dev);
}

/* "domain:bus:device.function", as the driver formats it (13 characters and the NUL). */
SIM_EXPORT CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult rc = sim_check_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pciBusId || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", pci_bus(dev));
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dev || !pciBusId)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned domain, bus, device, function;
    char end;
    /* "bus:device.function" or "domain:bus:device.function", in hexadecimal */
    int n = sscanf(pciBusId, "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &end);
    if (n != 4) {
        domain = 0;
        n = sscanf(pciBusId, "%x:%x.%x%c", &bus, &device, &function, &end) == 3 ? 4 : 0;
    }
    for (int d = 0; n == 4 && d < sim_n_devices; d++) {
        if (domain == 0 && bus == (unsigned)pci_bus(d) && device == 0 && function == 0) {
            *dev = d;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_INVALID_DEVICE;
}

/* Every pair of distinct devices can reach each other, as on an NVLink board. */
SIM_EXPORT CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    CUresult rc = sim_check_device(dev);
    if (rc == CUDA_SUCCESS)
        rc = sim_check_device(peerDev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!canAccessPeer)
        return CUDA_ERROR_INVALID_VALUE;
    *canAccessPeer = dev != peerDev;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
                                            CUdevice srcDevice, CUdevice dstDevice)
{
    CUresult rc = sim_check_device(srcDevice);
    if (rc == CUDA_SUCCESS)
        rc = sim_check_device(dstDevice);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (srcDevice == dstDevice)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    switch ((int)attrib) {
    case 1: /* CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK */
        *value = 0;
        return CUDA_SUCCESS;
    case 2: /* ACCESS_SUPPORTED */
    case 3: /* NATIVE_ATOMIC_SUPPORTED */
    case 4: /* CUDA_ARRAY_ACCESS_SUPPORTED */
        *value = 1;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}
