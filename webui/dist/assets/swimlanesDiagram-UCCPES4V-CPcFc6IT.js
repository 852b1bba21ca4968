import{r as e,t}from"./chunk-FGVZ23HU-C_fQsKiM.js";import"./chunk-KTR4FSNJ-DSr3q0Xy.js";import"./chunk-CNRTWJTD-iwWVrUl4.js";import"./diagram-BgjsbV5H.js";import"./chunk-D5HYT7QG-Cg_1VEnw.js";import"./chunk-F3AE6A5H-BsK8y9Ax.js";import"./chunk-MDAHDJXZ-BOQYsdA2.js";import"./chunk-MPYPSXSE-BzR0l6sC.js";import"./chunk-GZTWQ64R-CS0ulMYx.js";import"./chunk-DZSZGQHW-BsSkbLhC.js";import"./chunk-ND7LMLKX-CJyv7B7C.js";import"./chunk-T47YP6PS-DTTVpmQw.js";import"./chunk-OWCVCYLK-D-yWzpi8.js";import"./chunk-QDWOWVBQ-eTlCRy50.js";import"./d3-selection-dCQX2BNo.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({styles:n(t=>`${e(t)}
  .swimlane.cluster:not([data-color-id]) rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};