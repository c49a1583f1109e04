use pretty_assertions::assert_eq;

use super::NPM_PREFIX;
use super::bin_path;
use super::find;

#[test]
fn the_reference_mcp_server_is_found_by_package_or_binary_and_installs_under_target() {
    let by_bin = find("mcp-server-everything").expect("by binary name");
    let by_package = find("@modelcontextprotocol/server-everything").expect("by package name");
    assert_eq!(by_bin, by_package);
    assert_eq!(find("cargo-deny"), None);
    let bin = bin_path(&by_bin);
    assert!(
        bin.ends_with("target/tools/npm/node_modules/.bin/mcp-server-everything"),
        "{}",
        bin.display()
    );
    assert_eq!(NPM_PREFIX, "target/tools/npm");
}

#[test]
fn installing_one_npm_tool_names_them_all_so_npm_removes_none() {
    // npm removes what its command line does not name from a `--no-save` folder.
    assert_eq!(
        super::install_cmd().display(),
        "npm install --prefix target/tools/npm --no-audit --no-fund --no-save \
         @modelcontextprotocol/server-everything@2026.8.31 pyright@1.1.414"
    );
}
