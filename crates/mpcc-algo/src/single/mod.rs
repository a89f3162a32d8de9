//! Single-path (per-subflow) congestion rules, their registry entries and builder.

pub mod binomial;
pub mod cubic;
pub mod hystart;
pub mod reno;
pub mod vegas;
pub mod veno;
pub mod westwood;

use crate::params::{param, AlgoInfo, ParamInfo, INIT_CWND};
use crate::{Controller, Uncoupled};

const fn single(name: &'static str, summary: &'static str, doc: &'static str, params: &'static [ParamInfo]) -> AlgoInfo {
    AlgoInfo { name, kind: "single", summary, doc, params, rule: None }
}

pub static REGISTRY: &[AlgoInfo] = &[
    single(
        "reno",
        "NewReno AIMD: +1 segment per RTT, halve on loss (RFC 5681/6582)",
        "docs/algorithms/reno.md",
        &[INIT_CWND, param("beta", 0.5, 0.01, 0.99, "multiplicative decrease fraction")],
    ),
    single(
        "cubic",
        "CUBIC (RFC 9438): cubic growth around W_max, Reno-friendly region, beta 0.7",
        "docs/algorithms/cubic.md",
        &[
            INIT_CWND,
            param("c", 0.4, 0.01, 10.0, "cubic scaling constant C, segments/s^3"),
            param("beta", 0.7, 0.1, 0.99, "beta_cubic: window kept on a congestion event"),
            param("fast_convergence", 1.0, 0.0, 1.0, "1 = fast convergence on, 0 = off (values >= 0.5 mean on)"),
            param("hystart", 0.0, 0.0, 1.0, "1 = HyStart ends slow start early (Linux); default: the TCP profile's hystart"),
            param(
                "initial_growth",
                0.0,
                0.0,
                0.5,
                "least growth per RTT (fraction of cwnd) until the first loss: Linux 0.05, RFC 9438 0; default: the TCP profile's",
            ),
        ],
    ),
    single(
        "vegas",
        "TCP Vegas: per-RTT +-1 segment from the queued-segment estimate (Brakmo & Peterson)",
        "docs/algorithms/vegas.md",
        &[
            INIT_CWND,
            param("alpha", 2.0, 0.0, 100.0, "grow while fewer than alpha segments are queued"),
            param("beta", 4.0, 0.0, 100.0, "shrink while more than beta segments are queued (raised to alpha if below)"),
            param("gamma", 1.0, 0.0, 100.0, "leave slow start once more than gamma segments are queued"),
        ],
    ),
    single(
        "veno",
        "TCP Veno: Reno that tells random from congestive loss by the Vegas backlog (Fu & Liew)",
        "docs/algorithms/veno.md",
        &[
            INIT_CWND,
            param("beta", 3.0, 0.0, 1000.0, "backlog threshold in segments: below it a loss is random"),
            param("random_loss_factor", 0.8, 0.5, 1.0, "window kept after a loss judged random"),
        ],
    ),
    single(
        "westwood",
        "TCP Westwood+: Reno growth, window set to BWE x RTT_min after a loss (Mascolo et al.)",
        "docs/algorithms/westwood.md",
        &[INIT_CWND],
    ),
    AlgoInfo {
        rule: Some(binomial::check_params),
        ..single(
            "binomial",
            "Binomial control: +alpha/w^k per RTT, -beta w^l on loss (Bansal & Balakrishnan)",
            "docs/algorithms/binomial.md",
            &[
                INIT_CWND,
                param("k", 0.0, -1.0, 2.0, "increase exponent k"),
                param("l", 1.0, 0.0, 1.0, "decrease exponent l"),
                param("alpha", 1.0, 0.01, 100.0, "increase scale alpha, segments^(k+1) per RTT"),
                param("beta", 0.5, 0.001, 100.0, "decrease scale beta (with l = 1 it must stay below 1)"),
            ],
        )
    },
    single(
        "sqrt",
        "SQRT binomial control: k = l = 1/2, alpha 1, beta 1/2",
        "docs/algorithms/binomial.md",
        &[
            INIT_CWND,
            param("alpha", 1.0, 0.01, 100.0, "increase scale alpha"),
            param("beta", 0.5, 0.001, 100.0, "decrease scale beta"),
        ],
    ),
    single(
        "iiad",
        "IIAD binomial control: k = 1, l = 0, alpha 2, beta 1",
        "docs/algorithms/binomial.md",
        &[
            INIT_CWND,
            param("alpha", 2.0, 0.01, 100.0, "increase scale alpha"),
            param("beta", 1.0, 0.001, 100.0, "decrease scale beta, segments per loss"),
        ],
    ),
];

/// Builds a registered single-path controller; `p` yields a parameter's value or default.
pub fn build(name: &str, p: &dyn Fn(&str) -> f64) -> Option<Controller> {
    let iw = p("init_cwnd");
    Some(match name {
        "reno" => Controller::Reno(Uncoupled::new(reno::Reno::new(iw, p("beta")))),
        "cubic" => Controller::Cubic(Uncoupled::new(
            cubic::Cubic::new(iw, p("c"), p("beta"), p("fast_convergence") >= 0.5)
                .with_hystart(p("hystart") >= 0.5)
                .with_initial_growth(p("initial_growth")),
        )),
        "vegas" => Controller::Vegas(Uncoupled::new(vegas::Vegas::new(iw, p("alpha"), p("beta"), p("gamma")))),
        "veno" => Controller::Veno(Uncoupled::new(veno::Veno::new(iw, p("beta"), p("random_loss_factor")))),
        "westwood" => Controller::Westwood(Uncoupled::new(westwood::Westwood::new(iw))),
        "binomial" => {
            Controller::Binomial(Uncoupled::new(binomial::Binomial::new(iw, p("k"), p("l"), p("alpha"), p("beta"))))
        }
        "sqrt" => Controller::Binomial(Uncoupled::new(binomial::Binomial::sqrt(iw, p("alpha"), p("beta")))),
        "iiad" => Controller::Binomial(Uncoupled::new(binomial::Binomial::iiad(iw, p("alpha"), p("beta")))),
        _ => return None,
    })
}

#[cfg(test)]
mod properties;
