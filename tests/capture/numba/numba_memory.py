# SPDX-License-Identifier: MIT
"""numba's memory API, unchanged, on the simulated device: device_array, to_device,
copy_to_host, pinned_array, mapped_array, managed_array, and numba's deferred deallocation
(frees wait in the memory manager's pending list until it is flushed, or while defer_cleanup()
holds them). Each step prints what the device's free memory says, so an untraced and a traced run
must print the same lines. Ends with "numba_memory: ok"."""
import sys

import numpy as np
from numba import cuda

MIB = 1 << 20


def used():
    free, total = cuda.current_context().get_memory_info()
    return total - free


def flush():
    """numba's own flush of the frees it deferred."""
    cuda.current_context().memory_manager.deallocations.clear()


def pending():
    return len(cuda.current_context().memory_manager.deallocations)


def main():
    cuda.select_device(0)
    base = used()
    print("device:", cuda.get_current_device().name.decode())

    a = cuda.device_array((256, 1024), dtype=np.float32)  # 1 MiB
    host = np.arange(3 * MIB // 8, dtype=np.float64)  # 3 MiB
    d = cuda.to_device(host)
    assert (d.copy_to_host() == host).all(), "round trip through the device"
    print("device arrays:", (used() - base) // 1024, "KiB")

    b = cuda.device_array(1000, dtype=np.int8)  # 1000 bytes, charged 1024
    print("small array charged:", used() - base - 4 * MIB, "bytes")

    del a
    print("after del, before the flush:", (used() - base) // 1024, "KiB, pending", pending())
    flush()
    print("after the flush:", (used() - base) // 1024, "KiB, pending", pending())

    with cuda.defer_cleanup():
        del d
        flush()  # disabled inside defer_cleanup
        print("inside defer_cleanup:", (used() - base) // 1024, "KiB")
    flush()
    print("after defer_cleanup:", (used() - base) // 1024, "KiB")

    p = cuda.pinned_array((512, 512), dtype=np.float32)  # 1 MiB page-locked
    p[:] = 2.0
    m = cuda.mapped_array(4096, dtype=np.int32)  # 16 KiB mapped
    m[:] = 7
    dm = cuda.to_device(np.ones(4096, dtype=np.int32))
    m[:] = dm.copy_to_host()
    g = cuda.managed_array(1 << 16, dtype=np.float64)  # 512 KiB managed
    g[:] = 1.5
    assert m.sum() == 4096 and p.sum() == 2.0 * 512 * 512 and g.sum() == 1.5 * (1 << 16)
    print("device memory besides the two device arrays:", used() - base - 1024 - dm.nbytes,
          "bytes (pinned, mapped and managed memory is not device memory)")

    del p, m, g, dm, b
    flush()
    print("all freed:", used() - base, "bytes")

    # The device memory numba's stream-ordered and pinned paths leave live at exit.
    keep = cuda.device_array(MIB // 4, dtype=np.float32)
    print("kept to the end:", keep.nbytes // 1024, "KiB")
    print("numba_memory: ok")
    sys.stdout.flush()


main()
