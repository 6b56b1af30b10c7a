"""Names the lab's modules share: every page control's URL key, by page, a class's link keys, and the
fragment a sidebar move reruns when no lab section read what moved. A leaf module (it imports nothing
of the lab), so each of them reads it without importing the others. Session State's entries are
declared in ``ui.session``.

A page's own controls are made by ``ui.controls``, which refuses a key that is not listed here. The
sidebar's keys are ``ui.settings.URL_KEYS``.
"""

from __future__ import annotations

PAGE_KEYS: dict[str, tuple[str, ...]] = {
    "mean": ("mean_shift",),
    "variance": ("var_scale", "var_offset"),
    "standardize": ("std_feature", "std_spread"),
    "scale_shift": ("ss_many_sentence", "ss_many_site", "ss_many_token"),
    "which_axis": (
        "axes_source",
        "axes_B",
        "axes_T",
        "axes_d",
        "axes_seed",
        "axes_site",
        "axes_b",
        "axes_t",
        "axes_i",
        "axes_groups",
        "axes_lens",
    ),
    "train_vs_inference": (
        "tvi_n",
        "tvi_momentum",
        "tvi_d",
        "tvi_feature",
        "tvi_seed",
        "tvi_auto_steps",
        "tvi_mode",
        "tvi_redraws",
        "tvi_shift",
        "tvi_scale",
        "tvi_framework",
        "tvi_fw_batch",
        "tvi_fw_momentum",
        "tvi_fn_call",
    ),
    "depth_and_drift": (
        "depth_layers",
        "depth_gain",
        "depth_width",
        "depth_act",
        "depth_norm",
        "depth_residual",
        "depth_seed",
        "depth_compare",
        "depth_pick",
        "depth_view",
        "depth_placement",
    ),
    "learning_rate": ("lr_gain", "lr_depth", "lr_width", "lr_steps", "lr_seeds", "lr_pick"),
    "training_steps": ("steps_lr", "steps_depth", "steps_seed", "steps_at", "steps_stat"),
    "inside_a_transformer": ("tf_site", "tf_param", "tf_placement"),
    "your_sentence": (
        "ys_text1",
        "ys_text2",
        "ys_sentence",
        "ys_token",
        "ys_site",
        "ys_kind",
        "ys_where",
        "ys_one_site",
        "ys_eps",
        "ys_unit",
    ),
    "estimators_and_eps": (
        "est_vector",
        "est_divisor",
        "est_place",
        "est_eps",
        "est_rms_example",
        "est_rms_dtype",
    ),
    "precision": (
        "prec_offset",
        "prec_dtype",
        "fused_case",
        "fused_v",
        "fused_mode",
        "fused_x",
        "fused_gamma",
    ),
    "invariances": (
        "inv_c",
        "inv_b",
        "geo_d",
        "geo_view",
        "geo_gamma1",
        "geo_gamma2",
        "geo_gamma3",
        "geo_beta1",
        "geo_beta2",
        "geo_beta3",
    ),
    "gradients": (
        "grad_kind",
        "grad_seed",
        "grad_k",
        "grad_feature",
        "grad_check_of",
        "grad_check_i",
        "grad_check_h",
        "grad_spread",
    ),
    "normalization_now": (
        "now_site",
        "now_sentence",
        "now_alpha",
        "now_layers",
        "now_gain",
        "now_qk_layer",
        "now_qk_head",
        "now_qk_sentence",
        "now_qk_scale",
        "now_fold_site",
    ),
    # presentation mode (a toggle in the sidebar) and the guided tour's step (ui.tour), on every page
    "app": ("present", "tour"),
}
ALL_PAGE_KEYS: frozenset[str] = frozenset(k for keys in PAGE_KEYS.values() for k in keys)
# A class's keys in an address (ui.class_session): no setting of the lab, never reported as unknown
CLASS_LINK_KEYS = ("class", "seat", "teach")

# The fragment a sidebar move reruns when no lab section read what it changed (ui.sidebar.rerun_lab_sections):
# it draws nothing (ui.state)
LAB_QUIET = "lab_quiet"
