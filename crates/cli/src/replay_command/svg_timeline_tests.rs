use pretty_assertions::assert_eq;

use super::escape;
use super::nice_ceiling;
use super::spread_labels;
use super::zoom_range;

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

#[test]
fn the_zoom_panel_is_drawn_only_when_it_shows_at_most_half_the_window() {
    // 23,941 tokens of a 200,000-token window: 0 to 50,000.
    assert_eq!(zoom_range(23_941, 200_000), Some(50_000.0));
    // Of a 60,000-token window the same range is most of it: no zoom.
    assert_eq!(zoom_range(23_941, 60_000), None);
    // The zoom never reaches the window's own range.
    assert_eq!(zoom_range(95_000, 200_000), None);
    assert_eq!(zoom_range(0, 200_000), None);
}

#[test]
fn threshold_labels_keep_their_spacing_inside_the_panel() {
    // Far apart: where they want to be.
    assert_eq!(
        spread_labels(&[100.0, 150.0, 200.0], 84.0, 348.0),
        [100.0, 150.0, 200.0]
    );
    // Close together: pushed apart downwards.
    assert_eq!(
        spread_labels(&[100.0, 102.0, 104.0], 84.0, 348.0),
        [100.0, 116.0, 132.0]
    );
    // At the bottom edge: pushed back up, never below the panel.
    assert_eq!(
        spread_labels(&[346.0, 347.0, 348.0], 84.0, 348.0),
        [316.0, 332.0, 348.0]
    );
}
