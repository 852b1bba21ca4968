import{r as e,t}from"./chunk-FGVZ23HU-CYOUM4g4.js";import"./chunk-KTR4FSNJ-DSr3q0Xy.js";import"./chunk-CNRTWJTD-O9mAM9Sv.js";import"./diagram-BE7vI-K_.js";import"./chunk-D5HYT7QG-ChfU-S21.js";import"./chunk-F3AE6A5H-D1kfGgmi.js";import"./chunk-MDAHDJXZ-BcLiGl9R.js";import"./chunk-MPYPSXSE-B8q8fT3-.js";import"./chunk-GZTWQ64R-DfaTsw5H.js";import"./chunk-DZSZGQHW-BZLzBRGP.js";import"./chunk-ND7LMLKX--XRDcEy9.js";import"./chunk-T47YP6PS-DOB9zKZL.js";import"./chunk-OWCVCYLK-CCOIjVpG.js";import"./chunk-QDWOWVBQ-DTFNX-Mn.js";import"./d3-selection-dCQX2BNo.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({styles:n(t=>`${e(t)}
  .swimlane.cluster:not([data-color-id]) rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};