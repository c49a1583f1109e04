use std::borrow::Cow;

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::JsonShellOutput;
use super::json_exit_code;
use super::json_shell_output;

/// What the reading answers, through a `Value` as the callers read it before.
fn through_value(text: &str) -> Option<(Option<String>, Option<i64>)> {
    let value: Value = serde_json::from_str(text).ok()?;
    Some((
        value
            .get("output")
            .and_then(Value::as_str)
            .map(str::to_string),
        value.pointer("/metadata/exit_code").and_then(Value::as_i64),
    ))
}

fn read(text: &str) -> Option<(Option<String>, Option<i64>)> {
    json_shell_output(text).map(|read| (read.output.map(Cow::into_owned), read.exit_code))
}

#[test]
fn reads_what_a_value_reads() {
    let texts = [
        r#"{"output":"ok\n","metadata":{"exit_code":0,"duration_seconds":0.1}}"#,
        r#"{"output":"fail \"x\"\n","metadata":{"exit_code":101}}"#,
        r#"  {"metadata":{"exit_code":-3},"output":"a"}  "#,
        r#"{"output":"a","output":"b"}"#,
        r#"{"output":"a","output":7}"#,
        r#"{"metadata":{"exit_code":1},"metadata":{"other":1}}"#,
        r#"{"metadata":{"exit_code":1,"exit_code":"2"}}"#,
        r#"{"metadata":{"exit_code":9223372036854775807}}"#,
        r#"{"metadata":{"exit_code":9223372036854775808}}"#,
        r#"{"metadata":{"exit_code":18446744073709551616}}"#,
        r#"{"metadata":{"exit_code":1.0}}"#,
        r#"{"metadata":{"exit_code":-0}}"#,
        r#"{"metadata":{"exit_code":1e400}}"#,
        r#"{"metadata":[1,2],"output":["x"]}"#,
        r#"{"metadata":"exit_code","output":null}"#,
        r#"{"outp\u0075t":"escaped key","met\u0061data":{"exit_\u0063ode":5}}"#,
        r#"{"output":"\ud83d\ude00 pair"}"#,
        r#"{"output":"\ud800 lone"}"#,
        r#"{"other":"\ud800 lone","output":"x"}"#,
        r#"{"output":"control	tab"}"#,
        r#"{"output":"bad \q escape","metadata":{"exit_code":1}}"#,
        r#"{"output":"\u00e9 escaped","metadata":{"exit_code":2}}"#,
        r#"{"output":"\ud800 lone","metadata":{"exit_code":2}}"#,
        r#"{"output":"\\u not an escape","metadata":{"exit_code":3}}"#,
        r#"{"output":"a\"b\\c\/d\b\f\n\r\t","metadata":{"exit_code":4}}"#,
        r#"{"output":1e400,"metadata":{"exit_code":4}}"#,
        r#"{"output":{"nested":[1,2]},"metadata":{"exit_code":5}}"#,
        r#"{"output":"a","output":"b","metadata":{"exit_code":6}}"#,
        r#"{"output":"x","nested":{"a":[{"b":{"c":[true,false,null,1.5e3]}}]}}"#,
        r#"{"output":"x"} trailing"#,
        r#"{"output":"x""#,
        r#"{"output":"x",}"#,
        r#"[{"output":"x"}]"#,
        r#""a string""#,
        "12",
        "",
        r#"{"$serde_json::private::RawValue":"{\"output\":\"raw\"}"}"#,
        r#"{"a":1,"$serde_json::private::RawValue":"x","output":"y"}"#,
        r#"{"output":"x","inner":{"$serde_json::private::RawValue":"not json"}}"#,
        r#"{"output":"x","inner":{"$serde_json::private::RawValue":"[1]"}}"#,
    ];
    for text in texts {
        assert_eq!(read(text), through_value(text), "{text}");
        assert_eq!(
            json_exit_code(text),
            through_value(text).map(|(_, code)| code),
            "{text}"
        );
    }
}

#[test]
fn an_output_without_escapes_is_borrowed() {
    let text = r#"{"output":"plain","metadata":{"exit_code":0}}"#;
    assert_eq!(
        json_shell_output(text),
        Some(JsonShellOutput {
            output: Some(Cow::Borrowed("plain")),
            exit_code: Some(0),
        })
    );
    assert!(matches!(
        json_shell_output(text).and_then(|read| read.output),
        Some(Cow::Borrowed(_))
    ));
}

#[test]
fn nesting_deeper_than_value_reads_fails_alike() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let text = format!(r#"{{"output":"x","deep":{deep}}}"#);
    assert_eq!(read(&text), through_value(&text));
    let text = format!(r#"{{"output":{deep},"metadata":{{"exit_code":1}}}}"#);
    assert_eq!(read(&text), through_value(&text));
    assert_eq!(
        json_exit_code(&text),
        through_value(&text).map(|(_, code)| code)
    );
    let shallow = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let text = format!(r#"{{"output":"x","deep":{shallow}}}"#);
    assert_eq!(read(&text), through_value(&text));
}
