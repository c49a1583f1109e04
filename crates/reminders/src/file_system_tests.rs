use pretty_assertions::assert_eq;

use super::*;

#[test]
fn local_disks_and_memory_file_systems_are_local() {
    for magic in [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0x794C_7630] {
        assert_eq!(
            FileSystemKind::from_magic(magic),
            FileSystemKind::Local,
            "{magic:#x}"
        );
    }
}

#[test]
fn network_fuse_and_unknown_file_systems_are_not_local() {
    // NFS, SMB, CIFS, SMB2, FUSE, 9p, AFS, and a number no file system uses.
    for magic in [
        0x6969,
        0x517B,
        0xFF53_4D42,
        0xFE53_4D42,
        0x6573_5546,
        0x0102_1997,
        0x6B41_4653,
        0x1234_5678,
    ] {
        assert_eq!(
            FileSystemKind::from_magic(magic),
            FileSystemKind::Other,
            "{magic:#x}"
        );
    }
}

#[test]
fn a_path_that_does_not_exist_is_not_local() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        FileSystemKind::of(&dir.path().join("missing/file.rs")),
        FileSystemKind::Other
    );
}

#[cfg(target_os = "linux")]
#[test]
fn the_kind_of_a_path_is_its_file_systems_magic_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file.rs");
    std::fs::write(&path, "fn main() {}\n").unwrap();
    // Whatever file system the tests run on, the kind follows its magic number.
    let magic = rustix::fs::statfs(&path).unwrap().f_type as u32;
    assert_eq!(FileSystemKind::of(&path), FileSystemKind::from_magic(magic));
}

#[cfg(not(target_os = "linux"))]
#[test]
fn off_linux_every_file_is_checked_on_the_blocking_pool() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(FileSystemKind::of(dir.path()), FileSystemKind::Other);
}
