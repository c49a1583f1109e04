//! [`FileSystemKind`]: whether a tracked file lies on a local file system, where a `stat` answers
//! at once, or on one where it can hang.
//!
//! The `changed_files` reminder checks every tracked file before each request. A `stat` on a
//! network mount (NFS, SMB, …) or a FUSE file system waits for a server or a user-space process;
//! one that does not answer holds the caller for as long as it likes. Those checks therefore run
//! on tokio's blocking pool, where the generator's timeout still fires. On a local disk a `stat`
//! of a file read moments ago answers from the kernel's caches in about a microsecond, and
//! the hop to the pool (a thread wake-up each way) costs more than the 50 `stat`s of a
//! typical session together; those files are checked inline.
//!
//! The kind is looked up once per read, by the first full check after it (on the blocking pool,
//! since a `statfs` can hang where a `stat` can), from `statfs(2)`'s `f_type` on Linux: an
//! allow-list of local disk and memory file systems is [`FileSystemKind::Local`], anything else
//! (network and FUSE file systems, and any type this list does not know) is
//! [`FileSystemKind::Other`]. On other operating systems every file is `Other`, so every check
//! takes the hop, as it always did. See docs/design/reminders.md, "Timeouts leave no trace".

use std::path::Path;

/// Where a tracked file lies, as far as a hanging `stat` is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FileSystemKind {
    /// A local disk or memory file system (ext4, XFS, Btrfs, tmpfs, overlayfs, …): a `stat`
    /// answers at once, so the file is checked inline.
    Local,
    /// A network or FUSE file system, or one not known to be local (and every file on operating
    /// systems other than Linux): the file is checked on the blocking pool, under the timeout.
    #[default]
    Other,
}

/// `f_type` magic numbers of local file systems, as Linux's `include/uapi/linux/magic.h` names
/// them (ZFS's from OpenZFS), as their low 32 bits: `f_type` is a signed `long`, negative on 32-bit targets for
/// the numbers with the high bit set.
const LOCAL_MAGICS: &[u32] = &[
    0xEF53,      // ext2/ext3/ext4
    0x5846_5342, // xfs
    0x9123_683E, // btrfs
    0x0102_1994, // tmpfs
    0x8584_58F6, // ramfs
    0x794C_7630, // overlayfs
    0xF2F5_2010, // f2fs
    0x2FC1_2FC1, // zfs (OpenZFS's `ZFS_SUPER_MAGIC`)
    0xCA45_1A4E, // bcachefs
    0x5265_4973, // reiserfs
    0x3434,      // nilfs2
    0x7371_7368, // squashfs
    0xE0F5_E1E2, // erofs
    0x9660,      // iso9660
    0x4D44,      // vfat
    0x2011_BAB0, // exfat
];

impl FileSystemKind {
    /// The kind of the file system holding `path` (following symlinks); `Other` when it cannot
    /// be told (the path does not exist, `statfs` failed, or not on Linux).
    pub fn of(path: &Path) -> Self {
        #[cfg(target_os = "linux")]
        {
            match rustix::fs::statfs(path) {
                // The magic numbers are 32-bit values in a `c_long`, sign-extended on 32-bit
                // targets: their low 32 bits are the number.
                Ok(stat) => Self::from_magic(stat.f_type as u32),
                Err(error) => {
                    tracing::debug!(path = %path.display(), %error, "statfs failed; treating the file system as not local");
                    Self::Other
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = path;
            Self::Other
        }
    }

    /// The kind of a file system by its `statfs(2)` `f_type` magic number (low 32 bits).
    pub fn from_magic(magic: u32) -> Self {
        if LOCAL_MAGICS.contains(&magic) {
            Self::Local
        } else {
            Self::Other
        }
    }

    /// Whether a `stat` of a file here answers at once.
    pub fn is_local(self) -> bool {
        self == Self::Local
    }
}

#[cfg(test)]
#[path = "file_system_tests.rs"]
mod tests;
