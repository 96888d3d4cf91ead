"""Every hypothesis strategy the suite uses, one module per stage; import them from here."""

from contracts.spec_suite.strategies.block import (
    BLOCK_GAIN_FAULTS as BLOCK_GAIN_FAULTS,
)
from contracts.spec_suite.strategies.block import (
    GAIN_SWAPS as GAIN_SWAPS,
)
from contracts.spec_suite.strategies.block import (
    bad_eps_value as bad_eps_value,
)
from contracts.spec_suite.strategies.block import (
    bad_norm_config as bad_norm_config,
)
from contracts.spec_suite.strategies.block import (
    bad_norm_type as bad_norm_type,
)
from contracts.spec_suite.strategies.block import (
    block_case as block_case,
)
from contracts.spec_suite.strategies.block import (
    block_eps as block_eps,
)
from contracts.spec_suite.strategies.block import (
    block_widths as block_widths,
)
from contracts.spec_suite.strategies.block import (
    broken_block_executor as broken_block_executor,
)
from contracts.spec_suite.strategies.block import (
    gain_swap as gain_swap,
)
from contracts.spec_suite.strategies.block import (
    inject_block_layer_swap as inject_block_layer_swap,
)
from contracts.spec_suite.strategies.block import (
    inject_gain_swap as inject_gain_swap,
)
from contracts.spec_suite.strategies.block import (
    inject_norm_eps as inject_norm_eps,
)
from contracts.spec_suite.strategies.block import (
    inject_residual_width as inject_residual_width,
)
from contracts.spec_suite.strategies.block import (
    norm_width_mismatch as norm_width_mismatch,
)
from contracts.spec_suite.strategies.block import (
    over_block_graph as over_block_graph,
)
from contracts.spec_suite.strategies.block import (
    over_block_parameters as over_block_parameters,
)
from contracts.spec_suite.strategies.block import (
    precedence_block_forward as precedence_block_forward,
)
from contracts.spec_suite.strategies.block import (
    precedence_block_plan as precedence_block_plan,
)
from contracts.spec_suite.strategies.block import (
    residual_mismatch as residual_mismatch,
)
from contracts.spec_suite.strategies.common import (
    NAMED as NAMED,
)
from contracts.spec_suite.strategies.common import (
    finite_floats as finite_floats,
)
from contracts.spec_suite.strategies.common import (
    from_domain as from_domain,
)
from contracts.spec_suite.strategies.common import (
    naming as naming,
)
from contracts.spec_suite.strategies.common import (
    non_finite_element as non_finite_element,
)
from contracts.spec_suite.strategies.common import (
    non_finite_float as non_finite_float,
)
from contracts.spec_suite.strategies.common import (
    not_a_float_datum as not_a_float_datum,
)
from contracts.spec_suite.strategies.common import (
    not_a_number as not_a_number,
)
from contracts.spec_suite.strategies.common import (
    not_a_real as not_a_real,
)
from contracts.spec_suite.strategies.common import (
    not_a_sequence_of_tokens as not_a_sequence_of_tokens,
)
from contracts.spec_suite.strategies.common import (
    not_an_exact_int as not_an_exact_int,
)
from contracts.spec_suite.strategies.common import (
    symbol_values as symbol_values,
)
from contracts.spec_suite.strategies.common import (
    value_assigned as value_assigned,
)
from contracts.spec_suite.strategies.dags import (
    DAG_SIDE as DAG_SIDE,
)
from contracts.spec_suite.strategies.dags import (
    DEEP_CHAIN as DEEP_CHAIN,
)
from contracts.spec_suite.strategies.dags import (
    MAX_TREE as MAX_TREE,
)
from contracts.spec_suite.strategies.dags import (
    MOTIF_TREE as MOTIF_TREE,
)
from contracts.spec_suite.strategies.dags import (
    QUICK_PROFILE as QUICK_PROFILE,
)
from contracts.spec_suite.strategies.dags import (
    ProgramBuilder as ProgramBuilder,
)
from contracts.spec_suite.strategies.dags import (
    budgeted_op as budgeted_op,
)
from contracts.spec_suite.strategies.dags import (
    deep_scalar_programs as deep_scalar_programs,
)
from contracts.spec_suite.strategies.dags import (
    deep_tensor_programs as deep_tensor_programs,
)
from contracts.spec_suite.strategies.dags import (
    examples as examples,
)
from contracts.spec_suite.strategies.dags import (
    random_dags as random_dags,
)
from contracts.spec_suite.strategies.dags import (
    scalar_programs as scalar_programs,
)
from contracts.spec_suite.strategies.dags import (
    tensor_leaf as tensor_leaf,
)
from contracts.spec_suite.strategies.dags import (
    tensor_programs as tensor_programs,
)
from contracts.spec_suite.strategies.linear import (
    SHAPE_FAULTS as SHAPE_FAULTS,
)
from contracts.spec_suite.strategies.linear import (
    STORAGE_MODES as STORAGE_MODES,
)
from contracts.spec_suite.strategies.linear import (
    WEIGHT_FAULTS as WEIGHT_FAULTS,
)
from contracts.spec_suite.strategies.linear import (
    alias_case as alias_case,
)
from contracts.spec_suite.strategies.linear import (
    bad_init_result as bad_init_result,
)
from contracts.spec_suite.strategies.linear import (
    bad_parameter_data as bad_parameter_data,
)
from contracts.spec_suite.strategies.linear import (
    broken_executor as broken_executor,
)
from contracts.spec_suite.strategies.linear import (
    deep_widths as deep_widths,
)
from contracts.spec_suite.strategies.linear import (
    duplicate_names as duplicate_names,
)
from contracts.spec_suite.strategies.linear import (
    fresh_layer_name as fresh_layer_name,
)
from contracts.spec_suite.strategies.linear import (
    init_spec_args as init_spec_args,
)
from contracts.spec_suite.strategies.linear import (
    input_rows as input_rows,
)
from contracts.spec_suite.strategies.linear import (
    invalid_init_choices as invalid_init_choices,
)
from contracts.spec_suite.strategies.linear import (
    invalid_plan_values as invalid_plan_values,
)
from contracts.spec_suite.strategies.linear import (
    layer_width as layer_width,
)
from contracts.spec_suite.strategies.linear import (
    mlp_case as mlp_case,
)
from contracts.spec_suite.strategies.linear import (
    mlp_widths as mlp_widths,
)
from contracts.spec_suite.strategies.linear import (
    non_matrix_input as non_matrix_input,
)
from contracts.spec_suite.strategies.linear import (
    not_a_matrix as not_a_matrix,
)
from contracts.spec_suite.strategies.linear import (
    over_model_graph as over_model_graph,
)
from contracts.spec_suite.strategies.linear import (
    over_model_parameters as over_model_parameters,
)
from contracts.spec_suite.strategies.linear import (
    plan_type_values as plan_type_values,
)
from contracts.spec_suite.strategies.linear import (
    renamed_layer as renamed_layer,
)
from contracts.spec_suite.strategies.linear import (
    storage_shape_mismatch as storage_shape_mismatch,
)
from contracts.spec_suite.strategies.linear import (
    storage_swap as storage_swap,
)
from contracts.spec_suite.strategies.linear import (
    token_count as token_count,
)
from contracts.spec_suite.strategies.linear import (
    width_mismatch as width_mismatch,
)
from contracts.spec_suite.strategies.linear import (
    wrong_input_width as wrong_input_width,
)
from contracts.spec_suite.strategies.numbers import (
    FLOAT_MAX as FLOAT_MAX,
)
from contracts.spec_suite.strategies.numbers import (
    assigned_value as assigned_value,
)
from contracts.spec_suite.strategies.numbers import (
    bool_among_numbers as bool_among_numbers,
)
from contracts.spec_suite.strategies.numbers import (
    edge_floats as edge_floats,
)
from contracts.spec_suite.strategies.numbers import (
    huge as huge,
)
from contracts.spec_suite.strategies.numbers import (
    int_beyond_float_range as int_beyond_float_range,
)
from contracts.spec_suite.strategies.numbers import (
    int_beyond_range_in_data as int_beyond_range_in_data,
)
from contracts.spec_suite.strategies.numbers import (
    non_finite_number_operand as non_finite_number_operand,
)
from contracts.spec_suite.strategies.numbers import (
    not_a_value_type as not_a_value_type,
)
from contracts.spec_suite.strategies.numbers import (
    overflowing_gradient as overflowing_gradient,
)
from contracts.spec_suite.strategies.numbers import (
    overflowing_operation as overflowing_operation,
)
from contracts.spec_suite.strategies.numbers import (
    tensor_gradient_overflow as tensor_gradient_overflow,
)
from contracts.spec_suite.strategies.numbers import (
    tensor_result_overflow as tensor_result_overflow,
)
from contracts.spec_suite.strategies.numbers import (
    tiny as tiny,
)
from contracts.spec_suite.strategies.ports import (
    embedding_run as embedding_run,
)
from contracts.spec_suite.strategies.ports import (
    mlp_run as mlp_run,
)
from contracts.spec_suite.strategies.ports import (
    tokens_with_a_bool as tokens_with_a_bool,
)
from contracts.spec_suite.strategies.precedence import (
    copy_inputs as copy_inputs,
)
from contracts.spec_suite.strategies.precedence import (
    fresh_index as fresh_index,
)
from contracts.spec_suite.strategies.precedence import (
    inject_alias as inject_alias,
)
from contracts.spec_suite.strategies.precedence import (
    inject_broadcast as inject_broadcast,
)
from contracts.spec_suite.strategies.precedence import (
    inject_budget_type as inject_budget_type,
)
from contracts.spec_suite.strategies.precedence import (
    inject_budget_value as inject_budget_value,
)
from contracts.spec_suite.strategies.precedence import (
    inject_config as inject_config,
)
from contracts.spec_suite.strategies.precedence import (
    inject_domain as inject_domain,
)
from contracts.spec_suite.strategies.precedence import (
    inject_duplicate_layer as inject_duplicate_layer,
)
from contracts.spec_suite.strategies.precedence import (
    inject_duplicate_name as inject_duplicate_name,
)
from contracts.spec_suite.strategies.precedence import (
    inject_element as inject_element,
)
from contracts.spec_suite.strategies.precedence import (
    inject_empty_last_axis as inject_empty_last_axis,
)
from contracts.spec_suite.strategies.precedence import (
    inject_eps_type as inject_eps_type,
)
from contracts.spec_suite.strategies.precedence import (
    inject_eps_value as inject_eps_value,
)
from contracts.spec_suite.strategies.precedence import (
    inject_gain_shape as inject_gain_shape,
)
from contracts.spec_suite.strategies.precedence import (
    inject_init_result as inject_init_result,
)
from contracts.spec_suite.strategies.precedence import (
    inject_input as inject_input,
)
from contracts.spec_suite.strategies.precedence import (
    inject_layer_feature as inject_layer_feature,
)
from contracts.spec_suite.strategies.precedence import (
    inject_matmul_axis as inject_matmul_axis,
)
from contracts.spec_suite.strategies.precedence import (
    inject_matmul_dim as inject_matmul_dim,
)
from contracts.spec_suite.strategies.precedence import (
    inject_namespace as inject_namespace,
)
from contracts.spec_suite.strategies.precedence import (
    inject_no_elements as inject_no_elements,
)
from contracts.spec_suite.strategies.precedence import (
    inject_no_grad as inject_no_grad,
)
from contracts.spec_suite.strategies.precedence import (
    inject_no_tokens as inject_no_tokens,
)
from contracts.spec_suite.strategies.precedence import (
    inject_non_scalar as inject_non_scalar,
)
from contracts.spec_suite.strategies.precedence import (
    inject_operand_type as inject_operand_type,
)
from contracts.spec_suite.strategies.precedence import (
    inject_over_budget as inject_over_budget,
)
from contracts.spec_suite.strategies.precedence import (
    inject_parameter_data as inject_parameter_data,
)
from contracts.spec_suite.strategies.precedence import (
    inject_ragged as inject_ragged,
)
from contracts.spec_suite.strategies.precedence import (
    inject_raw_operand as inject_raw_operand,
)
from contracts.spec_suite.strategies.precedence import (
    inject_rdiv_constant as inject_rdiv_constant,
)
from contracts.spec_suite.strategies.precedence import (
    inject_rdiv_zero as inject_rdiv_zero,
)
from contracts.spec_suite.strategies.precedence import (
    inject_rename as inject_rename,
)
from contracts.spec_suite.strategies.precedence import (
    inject_replace as inject_replace,
)
from contracts.spec_suite.strategies.precedence import (
    inject_row_container as inject_row_container,
)
from contracts.spec_suite.strategies.precedence import (
    inject_scalar_first as inject_scalar_first,
)
from contracts.spec_suite.strategies.precedence import (
    inject_target_dtype as inject_target_dtype,
)
from contracts.spec_suite.strategies.precedence import (
    inject_target_range as inject_target_range,
)
from contracts.spec_suite.strategies.precedence import (
    inject_target_shape as inject_target_shape,
)
from contracts.spec_suite.strategies.precedence import (
    inject_token as inject_token,
)
from contracts.spec_suite.strategies.precedence import (
    inject_too_long as inject_too_long,
)
from contracts.spec_suite.strategies.precedence import (
    inject_upstream as inject_upstream,
)
from contracts.spec_suite.strategies.precedence import (
    inject_value_type as inject_value_type,
)
from contracts.spec_suite.strategies.precedence import (
    inject_vector_container as inject_vector_container,
)
from contracts.spec_suite.strategies.precedence import (
    inject_vector_element as inject_vector_element,
)
from contracts.spec_suite.strategies.precedence import (
    inject_vector_length as inject_vector_length,
)
from contracts.spec_suite.strategies.precedence import (
    inject_width_mismatch as inject_width_mismatch,
)
from contracts.spec_suite.strategies.precedence import (
    kept_element as kept_element,
)
from contracts.spec_suite.strategies.precedence import (
    negative_budget as negative_budget,
)
from contracts.spec_suite.strategies.precedence import (
    not_a_matrix_operand as not_a_matrix_operand,
)
from contracts.spec_suite.strategies.precedence import (
    not_a_vector_operand as not_a_vector_operand,
)
from contracts.spec_suite.strategies.precedence import (
    over_budget_types as over_budget_types,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_backward as precedence_backward,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_cross_entropy as precedence_cross_entropy,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_elementwise as precedence_elementwise,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_embedding_forward as precedence_embedding_forward,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_forward as precedence_forward,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_linear as precedence_linear,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_matmul as precedence_matmul,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_matrix as precedence_matrix,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_model_plan as precedence_model_plan,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_rdiv as precedence_rdiv,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_rms_norm as precedence_rms_norm,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_tensor_matmul as precedence_tensor_matmul,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_unary as precedence_unary,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_vector as precedence_vector,
)
from contracts.spec_suite.strategies.precedence import (
    precedence_vector_elements as precedence_vector_elements,
)
from contracts.spec_suite.strategies.scalar import (
    division_by_zero as division_by_zero,
)
from contracts.spec_suite.strategies.scalar import (
    exp_overflowing as exp_overflowing,
)
from contracts.spec_suite.strategies.scalar import (
    log_outside_domain as log_outside_domain,
)
from contracts.spec_suite.strategies.scalar import (
    positive_floats as positive_floats,
)
from contracts.spec_suite.strategies.scalar import (
    pow_bad_exponent as pow_bad_exponent,
)
from contracts.spec_suite.strategies.scalar import (
    pow_outside_domain as pow_outside_domain,
)
from contracts.spec_suite.strategies.scalar import (
    small_floats as small_floats,
)
from contracts.spec_suite.strategies.shapes import (
    OFFENDER_LAYOUTS as OFFENDER_LAYOUTS,
)
from contracts.spec_suite.strategies.shapes import (
    SIZED_OPS as SIZED_OPS,
)
from contracts.spec_suite.strategies.shapes import (
    bad_config as bad_config,
)
from contracts.spec_suite.strategies.shapes import (
    budget_of_wrong_type as budget_of_wrong_type,
)
from contracts.spec_suite.strategies.shapes import (
    distinct_bad_elements as distinct_bad_elements,
)
from contracts.spec_suite.strategies.shapes import (
    embedding_config as embedding_config,
)
from contracts.spec_suite.strategies.shapes import (
    empty_shapes as empty_shapes,
)
from contracts.spec_suite.strategies.shapes import (
    initializer_failure as initializer_failure,
)
from contracts.spec_suite.strategies.shapes import (
    inject_operand_data as inject_operand_data,
)
from contracts.spec_suite.strategies.shapes import (
    inject_operand_overflow as inject_operand_overflow,
)
from contracts.spec_suite.strategies.shapes import (
    matrix_rows as matrix_rows,
)
from contracts.spec_suite.strategies.shapes import (
    mismatched_matmul as mismatched_matmul,
)
from contracts.spec_suite.strategies.shapes import (
    not_a_sequence as not_a_sequence,
)
from contracts.spec_suite.strategies.shapes import (
    operand_cell as operand_cell,
)
from contracts.spec_suite.strategies.shapes import (
    operand_data as operand_data,
)
from contracts.spec_suite.strategies.shapes import (
    over_parameter_budget as over_parameter_budget,
)
from contracts.spec_suite.strategies.shapes import (
    overflowing_operands as overflowing_operands,
)
from contracts.spec_suite.strategies.shapes import (
    ragged_rows as ragged_rows,
)
from contracts.spec_suite.strategies.shapes import (
    sized_op as sized_op,
)
from contracts.spec_suite.strategies.shapes import (
    small_dim as small_dim,
)
from contracts.spec_suite.strategies.shapes import (
    tokens_empty as tokens_empty,
)
from contracts.spec_suite.strategies.shapes import (
    tokens_too_long as tokens_too_long,
)
from contracts.spec_suite.strategies.shapes import (
    tokens_with_bad_id as tokens_with_bad_id,
)
from contracts.spec_suite.strategies.shapes import (
    tokens_with_bad_type as tokens_with_bad_type,
)
from contracts.spec_suite.strategies.shapes import (
    two_bad_elements as two_bad_elements,
)
from contracts.spec_suite.strategies.shapes import (
    unequal_lengths as unequal_lengths,
)
from contracts.spec_suite.strategies.shapes import (
    with_bad_element as with_bad_element,
)
from contracts.spec_suite.strategies.shapes import (
    wrong_container as wrong_container,
)
from contracts.spec_suite.strategies.shapes import (
    wrong_operand as wrong_operand,
)
from contracts.spec_suite.strategies.shapes import (
    wrong_weight_shapes as wrong_weight_shapes,
)
from contracts.spec_suite.strategies.softmax_norm import (
    AXIS_OPS as AXIS_OPS,
)
from contracts.spec_suite.strategies.softmax_norm import (
    SOFTMAX_SIDE as SOFTMAX_SIDE,
)
from contracts.spec_suite.strategies.softmax_norm import (
    any_positive_eps as any_positive_eps,
)
from contracts.spec_suite.strategies.softmax_norm import (
    axis_case as axis_case,
)
from contracts.spec_suite.strategies.softmax_norm import (
    axis_of_wrong_type as axis_of_wrong_type,
)
from contracts.spec_suite.strategies.softmax_norm import (
    axis_out_of_range as axis_out_of_range,
)
from contracts.spec_suite.strategies.softmax_norm import (
    bad_eps as bad_eps,
)
from contracts.spec_suite.strategies.softmax_norm import (
    bad_gain as bad_gain,
)
from contracts.spec_suite.strategies.softmax_norm import (
    bad_targets as bad_targets,
)
from contracts.spec_suite.strategies.softmax_norm import (
    ce_case as ce_case,
)
from contracts.spec_suite.strategies.softmax_norm import (
    distinct_max as distinct_max,
)
from contracts.spec_suite.strategies.softmax_norm import (
    empty_axis as empty_axis,
)
from contracts.spec_suite.strategies.softmax_norm import (
    log_eps as log_eps,
)
from contracts.spec_suite.strategies.softmax_norm import (
    normal_range_eps as normal_range_eps,
)
from contracts.spec_suite.strategies.softmax_norm import (
    rms_case as rms_case,
)
from contracts.spec_suite.strategies.softmax_norm import (
    rms_row_case as rms_row_case,
)
from contracts.spec_suite.strategies.softmax_norm import (
    row_domain as row_domain,
)
from contracts.spec_suite.strategies.softmax_norm import (
    wide_logits as wide_logits,
)
from contracts.spec_suite.strategies.tensor import (
    ELEMENTWISE_BINARY as ELEMENTWISE_BINARY,
)
from contracts.spec_suite.strategies.tensor import (
    MATMUL_SIGNATURE as MATMUL_SIGNATURE,
)
from contracts.spec_suite.strategies.tensor import (
    TENSOR_DIMS as TENSOR_DIMS,
)
from contracts.spec_suite.strategies.tensor import (
    TENSOR_SIDE as TENSOR_SIDE,
)
from contracts.spec_suite.strategies.tensor import (
    UNARY as UNARY,
)
from contracts.spec_suite.strategies.tensor import (
    away_from_kinks as away_from_kinks,
)
from contracts.spec_suite.strategies.tensor import (
    bad_dtype_data as bad_dtype_data,
)
from contracts.spec_suite.strategies.tensor import (
    directions as directions,
)
from contracts.spec_suite.strategies.tensor import (
    exp_overflow as exp_overflow,
)
from contracts.spec_suite.strategies.tensor import (
    float_arrays as float_arrays,
)
from contracts.spec_suite.strategies.tensor import (
    log_domain_violation as log_domain_violation,
)
from contracts.spec_suite.strategies.tensor import (
    matmul_batch_mismatch as matmul_batch_mismatch,
)
from contracts.spec_suite.strategies.tensor import (
    matmul_inner_mismatch as matmul_inner_mismatch,
)
from contracts.spec_suite.strategies.tensor import (
    matmul_scalar_operand as matmul_scalar_operand,
)
from contracts.spec_suite.strategies.tensor import (
    non_broadcastable as non_broadcastable,
)
from contracts.spec_suite.strategies.tensor import (
    non_finite_tensor_data as non_finite_tensor_data,
)
from contracts.spec_suite.strategies.tensor import (
    non_scalar_shapes as non_scalar_shapes,
)
from contracts.spec_suite.strategies.tensor import (
    real_tensor_data as real_tensor_data,
)
from contracts.spec_suite.strategies.tensor import (
    tensor_case as tensor_case,
)
from contracts.spec_suite.strategies.tensor import (
    tensor_shapes as tensor_shapes,
)
from contracts.spec_suite.strategies.tensor import (
    tied_pair as tied_pair,
)
from contracts.spec_suite.strategies.tensor import (
    upstream_scalars as upstream_scalars,
)
from contracts.spec_suite.strategies.tensor import (
    with_bad_elements as with_bad_elements,
)
from contracts.spec_suite.strategies.tensor import (
    wrong_upstream as wrong_upstream,
)
