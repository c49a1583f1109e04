use std::fs;
use std::path::Path;
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;

fn skill_dir_with_icons() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::create_dir_all(dir.path().join("assets/icons")).expect("assets");
    fs::write(dir.path().join("assets/icon-small.svg"), "<svg/>").expect("icon");
    fs::write(dir.path().join("assets/icons/large.svg"), "<svg/>").expect("icon");
    fs::write(dir.path().join("SKILL.md"), "# s\n").expect("skill");
    dir
}

#[test]
fn valid_interface_resolves_icons_under_assets() {
    let dir = skill_dir_with_icons();
    let load = parse_skill_interface(
        dir.path(),
        r##"
[interface]
display_name = "Git Commit Helper"
short_description = "Create commits"
icon_small = "icon-small.svg"
icon_large = "icons/large.svg"
brand_color = "#4A90d9"
default_prompt = "Commit my recent changes"
"##,
    );
    assert_eq!(
        load,
        InterfaceLoad {
            interface: Some(SkillInterface {
                display_name: Some("Git Commit Helper".to_string()),
                short_description: Some("Create commits".to_string()),
                icon_small: Some(dir.path().join("assets/icon-small.svg")),
                icon_large: Some(dir.path().join("assets/icons/large.svg")),
                brand_color: Some("#4A90d9".to_string()),
                default_prompt: Some("Commit my recent changes".to_string()),
            }),
            issues: vec![],
        }
    );
}

#[test]
fn absolute_icon_path_is_rejected() {
    let dir = skill_dir_with_icons();
    let absolute = dir.path().join("assets/icon-small.svg");
    assert_eq!(
        validate_asset_path(dir.path(), &absolute),
        Err(AssetPathError::Absolute { path: absolute })
    );
}

#[test]
fn parent_dir_icon_path_is_rejected() {
    let dir = skill_dir_with_icons();
    let path = PathBuf::from("icons/../../SKILL.md");
    assert_eq!(
        validate_asset_path(dir.path(), &path),
        Err(AssetPathError::ParentDir { path })
    );
}

#[test]
fn icon_must_exist_under_assets() {
    let dir = skill_dir_with_icons();
    // SKILL.md exists in the skill directory, but not under assets/.
    let path = PathBuf::from("SKILL.md");
    assert_eq!(
        validate_asset_path(dir.path(), &path),
        Err(AssetPathError::Missing { path })
    );
}

#[cfg(unix)]
#[test]
fn icon_symlink_escaping_assets_is_rejected() {
    let dir = skill_dir_with_icons();
    std::os::unix::fs::symlink(
        dir.path().join("SKILL.md"),
        dir.path().join("assets/escape.svg"),
    )
    .expect("symlink");
    let path = PathBuf::from("escape.svg");
    assert_eq!(
        validate_asset_path(dir.path(), &path),
        Err(AssetPathError::Escapes { path })
    );
}

#[test]
fn brand_color_must_be_hash_rrggbb() {
    for valid in ["#000000", "#4A90D9", "#abcdef"] {
        assert!(is_valid_hex_color(valid), "{valid}");
    }
    for invalid in [
        "4A90D9", "#4A90D", "#4A90D9F", "#GGGGGG", "red", "", "#", "#４A90D",
    ] {
        assert!(!is_valid_hex_color(invalid), "{invalid}");
    }
}

#[test]
fn invalid_fields_are_dropped_and_reported() {
    let dir = skill_dir_with_icons();
    let long_name = "n".repeat(MAX_DISPLAY_NAME_CHARS + 1);
    let long_description = "d".repeat(MAX_SHORT_DESCRIPTION_CHARS + 1);
    let long_prompt = "p".repeat(MAX_DEFAULT_PROMPT_CHARS + 1);
    let text = format!(
        "[interface]\ndisplay_name = \"{long_name}\"\nshort_description = \"{long_description}\"\n\
         default_prompt = \"{long_prompt}\"\nicon_small = \"/etc/passwd\"\nicon_large = \"../SKILL.md\"\n\
         brand_color = \"blue\"\n"
    );
    let load = parse_skill_interface(dir.path(), &text);
    assert_eq!(load.interface, Some(SkillInterface::default()));
    assert_eq!(
        load.issues,
        vec![
            "icon_small `/etc/passwd` is an absolute path; icons must be relative to assets/; field ignored",
            "icon_large `../SKILL.md` contains `..`; icons must stay under assets/; field ignored",
            "brand_color `blue` is not a #RRGGBB colour; field ignored",
            "display_name is 65 characters, over the limit of 64; field ignored",
            "short_description is 1025 characters, over the limit of 1024; field ignored",
            "default_prompt is 257 characters, over the limit of 256; field ignored",
        ]
    );
}

#[test]
fn limits_count_characters_not_bytes() {
    let dir = skill_dir_with_icons();
    let name = "é".repeat(MAX_DISPLAY_NAME_CHARS);
    let load = parse_skill_interface(
        dir.path(),
        &format!("[interface]\ndisplay_name = \"{name}\"\n"),
    );
    assert_eq!(load.issues, Vec::<String>::new());
    assert_eq!(load.interface.and_then(|i| i.display_name), Some(name));
}

#[test]
fn malformed_or_empty_toml() {
    let dir = skill_dir_with_icons();
    let load = parse_skill_interface(dir.path(), "[interface\n");
    assert_eq!(load.interface, None);
    assert_eq!(load.issues.len(), 1);
    assert!(
        load.issues[0].starts_with("invalid SKILL.toml at line 1, column 11: "),
        "{:?}",
        load.issues
    );
    assert!(
        load.issues[0].ends_with("; interface ignored"),
        "{:?}",
        load.issues
    );

    let load = parse_skill_interface(
        dir.path(),
        "[interface]\ndisplay_name = \"Ünïcode\"\nbrand_color = 42\n",
    );
    assert_eq!(load.interface, None);
    assert!(
        load.issues[0].starts_with("invalid SKILL.toml at line 3, column 15: "),
        "{:?}",
        load.issues
    );

    assert_eq!(
        parse_skill_interface(dir.path(), "title = 'x'\n"),
        InterfaceLoad::default()
    );
}

#[test]
fn icon_must_be_a_file_not_a_directory() {
    let dir = skill_dir_with_icons();
    std::fs::create_dir_all(dir.path().join("assets/icons")).unwrap();
    for path in ["", ".", "icons"] {
        assert_eq!(
            validate_asset_path(dir.path(), Path::new(path)),
            Err(AssetPathError::NotAFile {
                path: PathBuf::from(path)
            }),
            "{path:?}"
        );
    }
}

#[test]
fn missing_skill_toml_is_no_interface() {
    assert_eq!(
        load_skill_interface(Path::new("/nonexistent/skill")),
        InterfaceLoad::default()
    );
}
