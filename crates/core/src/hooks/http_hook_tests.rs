use pretty_assertions::assert_eq;

use super::*;

#[test]
fn only_allowed_variables_are_interpolated() {
    let lookup = |name: &str| match name {
        "MY_TOKEN" => Some("secret".to_string()),
        "OTHER" => Some("leak".to_string()),
        _ => None,
    };
    let allowed = vec!["MY_TOKEN".to_string()];
    assert_eq!(
        interpolate("Bearer $MY_TOKEN", &allowed, lookup),
        "Bearer secret"
    );
    assert_eq!(
        interpolate("Bearer ${MY_TOKEN}!", &allowed, lookup),
        "Bearer secret!"
    );
    assert_eq!(interpolate("x-$OTHER-y", &allowed, lookup), "x--y");
    assert_eq!(
        interpolate("no variables", &allowed, lookup),
        "no variables"
    );
}
