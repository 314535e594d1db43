mdadm -q --create /dev/md0 --chunk=256 --level=raid5 --raid-devices=11 --force --assume-clean /dev/sdb1 /dev/sdc1 /dev/sdd1 /dev/sde1 /dev/sdf1 /dev/sdg1 /dev/sdh1 /dev/sdi1 /dev/sdj1 /dev/sdk1 /dev/sdl1
echo 1 > /sys/kernel/debug/tracing/events/writeback/balance_dirty_pages/enable
echo 1 > /sys/kernel/debug/tracing/events/writeback/bdi_dirty_ratelimit/enable
echo 1 > /sys/kernel/debug/tracing/events/writeback/global_dirty_state/enable
echo 1 > /sys/kernel/debug/tracing/events/writeback/writeback_single_inode/enable
mkfs -t xfs /dev/md0
mount -t xfs -o nobarrier,inode64 /dev/md0 /fs/md0
dd if=/dev/zero of=/fs/md0/zero-1 status=none &
dd if=/dev/zero of=/fs/md0/zero-2 status=none &
dd if=/dev/zero of=/fs/md0/zero-3 status=none &
dd if=/dev/zero of=/fs/md0/zero-4 status=none &
dd if=/dev/zero of=/fs/md0/zero-5 status=none &
dd if=/dev/zero of=/fs/md0/zero-6 status=none &
dd if=/dev/zero of=/fs/md0/zero-7 status=none &
dd if=/dev/zero of=/fs/md0/zero-8 status=none &
dd if=/dev/zero of=/fs/md0/zero-9 status=none &
dd if=/dev/zero of=/fs/md0/zero-10 status=none &
sleep 600
killall -9 dd
