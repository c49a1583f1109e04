use pretty_assertions::assert_eq;

use super::cell;
use super::change;
use super::escape;
use super::short;
use super::usd;

#[test]
fn session_text_cannot_open_markup_or_leave_an_attribute() {
    assert_eq!(
        escape(r#"</td><script>alert("x")</script> & 'quoted'"#),
        "&lt;/td&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &apos;quoted&apos;"
    );
    let mut out = String::new();
    cell(&mut out, r#"" onmouseover="x"#, "<b>", "text");
    assert_eq!(
        out,
        r#"<td class="text" data-v="&quot; onmouseover=&quot;x">&lt;b&gt;</td>"#
    );
}

#[test]
fn figures_read_at_a_glance() {
    assert_eq!(short(999), "999");
    assert_eq!(short(12_345), "12.3k");
    assert_eq!(short(1_234_567), "1.23M");
    assert_eq!(usd(None), "-");
    assert_eq!(usd(Some(0.0)), "$0.00");
    assert_eq!(usd(Some(0.00123)), "$0.0012");
    assert_eq!(usd(Some(12.345)), "$12.35");
    assert_eq!(change(80, 100), "-20.0%");
    assert_eq!(change(1, 0), "");
}
