use pretty_assertions::assert_eq;

use super::escape;
use super::nice_ceiling;

#[test]
fn escape_replaces_markup_quotes_and_control_characters() {
    assert_eq!(
        escape("a<b>&\"c\" 'd'\u{1}"),
        "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;\u{FFFD}"
    );
}

#[test]
fn nice_ceiling_rounds_up_to_one_two_or_five_times_a_power_of_ten() {
    assert_eq!(nice_ceiling(18_926.0 * 1.1), 25_000.0);
    assert_eq!(nice_ceiling(41_000.0), 50_000.0);
    assert_eq!(nice_ceiling(100_000.0), 100_000.0);
    assert_eq!(nice_ceiling(0.5), 1.0);
}
