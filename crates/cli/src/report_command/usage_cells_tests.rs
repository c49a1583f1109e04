use pretty_assertions::assert_eq;

use super::*;

#[test]
fn an_estimated_output_is_shown_apart_from_the_exact_count() {
    let mut out = String::new();
    output_cell(
        &mut out,
        &TokenTotals {
            output: 578,
            output_estimated: 24_696,
            estimated_requests: 1,
            ..TokenTotals::default()
        },
    );
    assert!(out.contains(r#"data-v="25274""#), "{out}");
    assert!(
        out.contains("578 exact + 24,696 estimated (at least)"),
        "{out}"
    );
    assert!(out.contains("+ ≈"), "{out}");

    let mut exact = String::new();
    output_cell(
        &mut exact,
        &TokenTotals {
            output: 578,
            ..TokenTotals::default()
        },
    );
    assert!(!exact.contains('≈'), "{exact}");
}

#[test]
fn a_lower_bound_cost_says_at_least() {
    assert_eq!(
        cost_text(Some(5.32), true),
        format!("≥ {}", html::usd(Some(5.32)))
    );
    assert_eq!(cost_text(Some(5.32), false), html::usd(Some(5.32)));
    assert_eq!(cost_text(None, true), html::usd(None));
    let mut out = String::new();
    cost_cell(&mut out, Some(1.5), true);
    assert!(
        out.starts_with(r#"<td class="num estimated" data-v="1.5""#),
        "{out}"
    );
}
