"""The reference engine on scalar Values, one module per contract, read in the seeds' order.

Stage 03, scalar autodiff: value (Value, CountingValue), graph (topological order).
Stage 05, shape contracts: shapes (Vector, Matrix), embedding (EmbeddingPlan, Embedding).
Stage 07, Linear and MLP: init (InitSpec), linear (LinearPlan, Linear), seal (parameter identity),
model (ModelPlan, MLP), forward (the whole-model forward plan).
Stage 08, normalization: block (RMSNormPlan, BlockPlan, Block: x + MLP(RMSNorm(x))).
Shared: errors (the seeds' exception types), checks (argument checks), frozen (validated objects
refuse assignment).
The tensor ops (Stage T, 06, 08) are contracts.tensor.
"""
