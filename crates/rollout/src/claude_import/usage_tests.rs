use pretty_assertions::assert_eq;

use super::to_value;
use super::usage_counts;
use super::usage_of;

/// Counts read from a usage object's text are the counts of its JSON tree.
#[test]
fn usage_counts_read_from_the_text_are_those_of_the_tree() {
    let usages = [
        r#"{"input_tokens":9,"cache_creation_input_tokens":4210,"cache_read_input_tokens":14872,"cache_creation":{"input_tokens":1},"output_tokens":8}"#,
        r#"{"input_tokens":1,"input_tokens":2,"output_tokens":-3}"#,
        r#"{"input_tokens":"5","output_tokens":1.0,"cache_read_input_tokens":true}"#,
        r#"{"input_tokens":-0,"output_tokens":9223372036854775807,"cache_read_input_tokens":9223372036854775808}"#,
        r#"{"input_tokens":1e3,"output_tokens":2}"#,
        r#"{"inp\u0075t_tokens":4,"output_tokens":2}"#,
        r#"{"output_tokens":null}"#,
        "{}",
    ];
    for usage in usages {
        assert_eq!(usage_counts(usage), usage_of(&to_value(usage)), "{usage}");
    }
}
