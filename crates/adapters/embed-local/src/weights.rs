//! Reads a BERT encoder's weights from `model.safetensors`, checking every tensor's dtype and
//! shape against `config.json`, so a truncated or mismatched file is a clear error, never a panic
//! in the forward pass.

use std::path::Path;

use ndarray::{Array1, Array2, concatenate};
use safetensors::{Dtype, SafeTensors};

use crate::config::BertConfig;
use crate::error::{ModelError, read_file};

/// A LayerNorm's scale and shift.
pub(crate) struct LayerNorm {
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
}

/// A dense layer, `y = x · weight + bias`, with `weight` stored `[in, out]` row-major (the
/// transpose of PyTorch's layout, which is what the matrix product reads fastest).
#[derive(Clone)]
pub(crate) struct Linear {
    pub weight: Array2<f32>,
    pub bias: Array1<f32>,
}

/// One transformer block.
pub(crate) struct Layer {
    /// Query, key and value projections side by side in one `[hidden, 3·hidden]` matrix.
    pub qkv: Linear,
    pub attn_out: Linear,
    pub attn_norm: LayerNorm,
    pub intermediate: Linear,
    pub output: Linear,
    pub out_norm: LayerNorm,
}

/// The embedding tables and their LayerNorm.
pub(crate) struct Embeddings {
    pub word: Array2<f32>,
    pub position: Array2<f32>,
    pub token_type: Array2<f32>,
    pub emb_norm: LayerNorm,
}

/// Everything the encoder needs (the unused pooler head is not loaded).
pub(crate) struct BertWeights {
    pub embeddings: Embeddings,
    pub layers: Vec<Layer>,
}

struct Reader<'a> {
    st: SafeTensors<'a>,
    path: &'a Path,
    /// `""` or `"bert."`: some exports prefix every tensor name.
    prefix: &'static str,
}

impl Linear {
    /// From PyTorch's `[out, in]` to `[in, out]`.
    fn transposed(self) -> Linear {
        Linear { weight: self.weight.t().as_standard_layout().into_owned(), bias: self.bias }
    }
}

impl Reader<'_> {
    fn broken(&self, reason: String) -> ModelError {
        ModelError::Broken { path: self.path.to_path_buf(), reason }
    }

    fn raw(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelError> {
        let full = format!("{}{name}", self.prefix);
        let view = self.st.tensor(&full).map_err(|_| self.broken(format!("tensor {full} is missing")))?;
        if view.dtype() != Dtype::F32 {
            return Err(self.broken(format!("tensor {full} is {:?}, only F32 is supported", view.dtype())));
        }
        if view.shape() != shape {
            return Err(
                self.broken(format!("tensor {full} has shape {:?}, config.json implies {shape:?}", view.shape()))
            );
        }
        Ok(view.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
    }

    fn matrix(&self, name: &str, rows: usize, cols: usize) -> Result<Array2<f32>, ModelError> {
        let data = self.raw(name, &[rows, cols])?;
        Array2::from_shape_vec((rows, cols), data).map_err(|e| self.broken(format!("tensor {name}: {e}")))
    }

    fn vector(&self, name: &str, len: usize) -> Result<Array1<f32>, ModelError> {
        Ok(Array1::from(self.raw(name, &[len])?))
    }

    fn linear(&self, name: &str, out: usize, inp: usize) -> Result<Linear, ModelError> {
        Ok(Linear {
            weight: self.matrix(&format!("{name}.weight"), out, inp)?,
            bias: self.vector(&format!("{name}.bias"), out)?,
        }
        .transposed())
    }

    fn norm(&self, name: &str, len: usize) -> Result<LayerNorm, ModelError> {
        Ok(LayerNorm {
            gamma: self.raw(&format!("{name}.weight"), &[len])?,
            beta: self.raw(&format!("{name}.bias"), &[len])?,
        })
    }

    fn layer(&self, i: usize, cfg: &BertConfig) -> Result<Layer, ModelError> {
        let h = cfg.hidden_size;
        let p = format!("encoder.layer.{i}");
        let q = self.linear(&format!("{p}.attention.self.query"), h, h)?;
        let k = self.linear(&format!("{p}.attention.self.key"), h, h)?;
        let v = self.linear(&format!("{p}.attention.self.value"), h, h)?;
        let stack = |e: ndarray::ShapeError| self.broken(format!("layer {i} q/k/v: {e}"));
        let qkv = Linear {
            weight: concatenate(ndarray::Axis(1), &[q.weight.view(), k.weight.view(), v.weight.view()])
                .map_err(stack)?,
            bias: concatenate(ndarray::Axis(0), &[q.bias.view(), k.bias.view(), v.bias.view()]).map_err(stack)?,
        };
        Ok(Layer {
            qkv,
            attn_out: self.linear(&format!("{p}.attention.output.dense"), h, h)?,
            attn_norm: self.norm(&format!("{p}.attention.output.LayerNorm"), h)?,
            intermediate: self.linear(&format!("{p}.intermediate.dense"), cfg.intermediate_size, h)?,
            output: self.linear(&format!("{p}.output.dense"), h, cfg.intermediate_size)?,
            out_norm: self.norm(&format!("{p}.output.LayerNorm"), h)?,
        })
    }
}

impl BertWeights {
    /// Loads and checks `model.safetensors` from `dir`.
    pub(crate) fn load(dir: &Path, cfg: &BertConfig) -> Result<Self, ModelError> {
        let path = dir.join("model.safetensors");
        let bytes = read_file(&path)?;
        let st = SafeTensors::deserialize(&bytes).map_err(|e| ModelError::Broken {
            path: path.clone(),
            reason: format!("not a complete safetensors file ({e}); it may be truncated"),
        })?;
        let prefix = if st.tensor("embeddings.word_embeddings.weight").is_ok() { "" } else { "bert." };
        let r = Reader { st, path: &path, prefix };
        let h = cfg.hidden_size;
        let position = r.matrix("embeddings.position_embeddings.weight", cfg.max_position_embeddings, h)?;
        let weights = BertWeights {
            embeddings: Embeddings {
                word: r.matrix("embeddings.word_embeddings.weight", cfg.vocab_size, h)?,
                position,
                token_type: r.matrix("embeddings.token_type_embeddings.weight", cfg.type_vocab_size, h)?,
                emb_norm: r.norm("embeddings.LayerNorm", h)?,
            },
            layers: (0..cfg.num_hidden_layers).map(|i| r.layer(i, cfg)).collect::<Result<_, _>>()?,
        };
        Ok(weights)
    }
}
